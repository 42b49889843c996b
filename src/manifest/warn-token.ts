// The GITHUB_TOKEN gotcha (docs/actions-only.md): events caused by a job's GITHUB_TOKEN
// start no workflows. In Actions-only mode baton writes run branches with that token, so CI never starts on them
// and a `checks` step would wait forever — unless baton acts with a GitHub App token
// (actions/create-github-app-token) or dispatches CI itself (`checks.workflow:`). And a CI
// workflow baton dispatches reports as GitHub Actions check runs, whose check_run and
// check_suite events start no workflow either (docs "Events that trigger workflows"):
// baton.yml hears it finish only through `workflow_run`. Shared by the Action's validate
// mode and `baton doctor`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parse, parseDocument } from 'yaml';

export const ACTIONS_ONLY_WORKFLOW = '.github/workflows/baton.yml';
export const MANIFESTS_DIR = '.agents/workflows';

export interface TokenWarning {
  file: string;
  line: number;
  column: number;
  /** `<workflow>/<step>` */
  step: string;
  /** What goes wrong, in a few words (the annotation's title). */
  title: string;
  message: string;
}

const WORKFLOWS_DIR = '.github/workflows';

/** The workflow names baton.yml's `on.workflow_run.workflows` lists. */
function workflowRunNames(batonYml: string): Set<string> {
  try {
    const on = (parse(batonYml) as { on?: { workflow_run?: { workflows?: unknown } } } | null)?.on;
    const names = on?.workflow_run?.workflows;
    return new Set(Array.isArray(names) ? names.map(String) : typeof names === 'string' ? [names] : []);
  } catch {
    return new Set();
  }
}

/** A workflow file's `name:` (GitHub shows the file's path for a workflow without one). */
export function workflowName(path: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const name = (parse(text) as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : path;
  } catch {
    return undefined;
  }
}

/** Actions-only mode is set up (baton.yml exists) and acts with GITHUB_TOKEN (no App token step). */
export function usesJobToken(batonYml: string | undefined): boolean {
  return batonYml !== undefined && !/actions\/create-github-app-token@/.test(batonYml);
}

/**
 * Warnings for the repository's files (path → text, paths relative to its root), in
 * Actions-only mode (baton.yml exists): every `checks` step without `workflow:` in
 * `.agents/workflows/*.yml` when baton acts with GITHUB_TOKEN, and every `checks` step
 * whose `workflow:` baton.yml does not hear finish (no `workflow_run` naming it). Files
 * that do not parse are left to the validator.
 */
export function tokenWarnings(files: Record<string, string>): TokenWarning[] {
  const batonYml = files[ACTIONS_ONLY_WORKFLOW];
  if (batonYml === undefined) return [];
  const jobToken = usesJobToken(batonYml);
  const heard = workflowRunNames(batonYml);
  const out: TokenWarning[] = [];
  for (const [file, text] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.startsWith(`${MANIFESTS_DIR}/`) || !/\.ya?ml$/.test(file)) continue;
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    if (doc.errors.length || !isMap(doc.contents)) continue;
    const nameNode = doc.contents.get('name');
    const workflow = typeof nameNode === 'string' ? nameNode : file.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
    const steps = doc.contents.get('steps', true);
    if (!isSeq(steps)) continue;
    for (const item of steps.items) {
      if (!isMap(item)) continue;
      const pair = item.items.find((p) => isScalar(p.key) && p.key.value === 'checks');
      if (!pair) continue;
      const id = item.get('id');
      const step = `${workflow}/${typeof id === 'string' ? id : '?'}`;
      const at = lines.linePos((pair.key as { range?: [number, number, number] }).range?.[0] ?? 0);
      const where = { file, line: at.line, column: at.col, step };
      const ci = isMap(pair.value) ? pair.value.get('workflow') : undefined;
      if (typeof ci !== 'string') {
        if (!jobToken) continue;
        out.push({
          ...where,
          title: 'CI never starts on baton run branches',
          message:
            `${step} waits for CI, but in Actions-only mode pushes made with GITHUB_TOKEN start no workflows: ` +
            `set \`workflow:\` on the checks step (baton dispatches CI itself) or give ${ACTIONS_ONLY_WORKFLOW} an App token (actions/create-github-app-token)`,
        });
        continue;
      }
      const ciPath = `${WORKFLOWS_DIR}/${ci}`;
      const ciName = workflowName(ciPath, files[ciPath]);
      if (ciName === undefined || heard.has(ciName)) continue;
      out.push({
        ...where,
        title: 'baton never hears CI finish',
        message:
          `${step} dispatches ${ciPath}, but ${ACTIONS_ONLY_WORKFLOW} never hears it finish: the check runs of a GitHub Actions workflow start no workflow ` +
          `(check_run and check_suite events of Actions' own check suites are not delivered to workflows); run \`baton update\`: it adds ` +
          `${JSON.stringify(ciName)} to \`workflow_run.workflows\` in the \`on:\` of ${ACTIONS_ONLY_WORKFLOW}`,
      });
    }
  }
  return out;
}

/** The same for a checkout on disk. */
export function tokenWarningsIn(root: string): TokenWarning[] {
  const files: Record<string, string> = {};
  const baton = join(root, ACTIONS_ONLY_WORKFLOW);
  if (!existsSync(baton)) return [];
  files[ACTIONS_ONLY_WORKFLOW] = readFileSync(baton, 'utf8');
  for (const folder of [MANIFESTS_DIR, WORKFLOWS_DIR]) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) if (/\.ya?ml$/.test(name)) files[`${folder}/${name}`] = readFileSync(join(dir, name), 'utf8');
  }
  return tokenWarnings(files);
}
