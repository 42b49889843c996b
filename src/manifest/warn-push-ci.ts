// The repository's CI that would run on baton's branches. Events a GitHub App's token causes
// start workflows, and `push` covers every branch, merged or not (docs "Triggering a workflow":
// https://docs.github.com/en/actions/using-workflows/triggering-a-workflow#triggering-a-workflow-from-a-workflow;
// "Events that trigger workflows", push). baton writes `baton/<run>` and its step branches with
// an App token (the App, or Actions-only with `--app-token`), so a workflow whose `on.push` would
// take `baton/…` runs the code an agent wrote — before any person looked at it — with the
// repository's secrets. Each such workflow is named, at its `push` key, with the fix:
// `branches-ignore: ['baton/**']`. baton.yml and the worker workflow are baton's own and listen
// to no push. Actions-only with the job's GITHUB_TOKEN: its pushes start no workflow, so nothing
// is said. Shared by the Action's validate mode, `baton validate` and `baton doctor`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { matchesFilters } from './filter-patterns.ts';
import type { SubscriptionWarning } from './warn-subscriptions.ts';
import { ACTIONS_ONLY_WORKFLOW, usesJobToken, workflowName } from './warn-token.ts';
import { WORKER_WORKFLOW } from './warn-pins.ts';

const WORKFLOWS_DIR = '.github/workflows';

/** Branches baton writes with an App token: a run branch and a step branch (src/engine/naming.ts). */
const BATON_BRANCHES = ['baton/fix-issue-12-1', 'baton/steps/fix-issue-12-1/implement'];

export const PUSH_CI_FIX = "branches-ignore: ['baton/**']";

const strings = (v: unknown): string[] | undefined => (v === undefined || v === null ? undefined : Array.isArray(v) ? v.map(String) : [String(v)]);

/**
 * Whether GitHub starts a workflow with this `on.push` (null: no filters) for a push to `branch`:
 * `branches` includes it, or `branches-ignore` does not exclude it; with only tag filters, no
 * branch push starts it (docs, "Using filters": a workflow that defines only tags filters does not
 * run for branches).
 */
function pushTakes(spec: Record<string, unknown> | null, branch: string): boolean {
  if (spec === null) return true;
  const branches = strings(spec.branches);
  const ignored = strings(spec['branches-ignore']);
  if (branches !== undefined) return matchesFilters(branches, branch);
  if (ignored !== undefined) return !ignored.some((p) => matchesFilters([p], branch));
  return strings(spec.tags) === undefined && strings(spec['tags-ignore']) === undefined;
}

/** The `push` trigger of a workflow file: its spec (null: no filters) and the node to point at; undefined when it has none. */
function pushTrigger(text: string, lines: LineCounter): { spec: Record<string, unknown> | null; node: Node | null } | undefined {
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length || !isMap(doc.contents)) return undefined;
  // YAML 1.1 reads a bare `on` key as true; GitHub reads it as `on`.
  const pair = doc.contents.items.find((p) => isScalar(p.key) && (p.key.value === 'on' || p.key.value === true));
  if (!pair) return undefined;
  const on = pair.value as Node | null;
  if (isScalar(on)) return on.value === 'push' ? { spec: null, node: on } : undefined;
  if (isSeq(on)) {
    const item = on.items.find((i) => isScalar(i) && i.value === 'push') as Node | undefined;
    return item ? { spec: null, node: item } : undefined;
  }
  if (!isMap(on)) return undefined;
  const push = on.items.find((p) => isScalar(p.key) && p.key.value === 'push');
  if (!push) return undefined;
  const value = isMap(push.value) ? (push.value.toJSON() as Record<string, unknown>) : null;
  return { spec: value, node: push.key as Node };
}

/** Warnings for the repository's files (path → text, relative to its root). */
export function pushCiWarnings(files: Record<string, string>): SubscriptionWarning[] {
  if (usesJobToken(files[ACTIONS_ONLY_WORKFLOW])) return [];
  const out: SubscriptionWarning[] = [];
  for (const [file, text] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.startsWith(`${WORKFLOWS_DIR}/`) || !/\.ya?ml$/.test(file) || file === ACTIONS_ONLY_WORKFLOW || file === WORKER_WORKFLOW) continue;
    const lines = new LineCounter();
    const push = pushTrigger(text, lines);
    if (!push || !BATON_BRANCHES.some((b) => pushTakes(push.spec, b))) continue;
    const at = lines.linePos(push.node?.range?.[0] ?? 0);
    const name = workflowName(file, text) ?? file;
    out.push({
      file,
      line: at.line,
      column: at.col,
      title: "push CI would run agent-written code with the repository's secrets",
      message:
        `${JSON.stringify(name)} (${file}) runs on pushes to baton's branches (baton/…), which baton makes with an App token: agent-written code, before anyone approved it, ` +
        `would run there with the repository's secrets — add \`${PUSH_CI_FIX}\` to its \`on.push\` (a \`checks\` step that waits for this CI can dispatch it instead: \`checks: { workflow: ${file.slice(WORKFLOWS_DIR.length + 1)} }\`)`,
    });
  }
  return out;
}

/** The same for a checkout on disk. */
export function pushCiWarningsIn(root: string): SubscriptionWarning[] {
  const files: Record<string, string> = {};
  const dir = join(root, WORKFLOWS_DIR);
  if (!existsSync(dir)) return [];
  for (const name of readdirSync(dir)) if (/\.ya?ml$/.test(name)) files[`${WORKFLOWS_DIR}/${name}`] = readFileSync(join(dir, name), 'utf8');
  return pushCiWarnings(files);
}
