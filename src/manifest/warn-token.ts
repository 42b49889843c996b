// DESIGN §4's gotcha: events caused by a job's GITHUB_TOKEN start no workflows. In
// Actions-only mode baton writes run branches with that token, so CI never starts on them
// and a `checks` step would wait forever — unless baton acts with a GitHub App token
// (actions/create-github-app-token) or dispatches CI itself (`checks.workflow:`). Shared
// by the Action's validate mode and `baton doctor`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

export const ACTIONS_ONLY_WORKFLOW = '.github/workflows/baton.yml';
export const MANIFESTS_DIR = '.agents/workflows';

export interface TokenWarning {
  file: string;
  line: number;
  column: number;
  /** `<workflow>/<step>` */
  step: string;
  message: string;
}

/** Actions-only mode is set up (baton.yml exists) and acts with GITHUB_TOKEN (no App token step). */
export function usesJobToken(batonYml: string | undefined): boolean {
  return batonYml !== undefined && !/actions\/create-github-app-token@/.test(batonYml);
}

/**
 * Warnings for the repository's files (path → text, paths relative to its root): every
 * `checks` step without `workflow:` in `.agents/workflows/*.yml`, when Actions-only mode
 * acts with GITHUB_TOKEN. Files that do not parse are left to the validator.
 */
export function tokenWarnings(files: Record<string, string>): TokenWarning[] {
  if (!usesJobToken(files[ACTIONS_ONLY_WORKFLOW])) return [];
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
      if (!pair || (isMap(pair.value) && pair.value.has('workflow'))) continue;
      const id = item.get('id');
      const step = `${workflow}/${typeof id === 'string' ? id : '?'}`;
      const at = lines.linePos((pair.key as { range?: [number, number, number] }).range?.[0] ?? 0);
      out.push({
        file,
        line: at.line,
        column: at.col,
        step,
        message:
          `${step} waits for CI, but in Actions-only mode pushes made with GITHUB_TOKEN start no workflows: ` +
          `set \`workflow:\` on the checks step (baton dispatches CI itself) or give ${ACTIONS_ONLY_WORKFLOW} an App token (actions/create-github-app-token)`,
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
  const dir = join(root, MANIFESTS_DIR);
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) if (/\.ya?ml$/.test(name)) files[`${MANIFESTS_DIR}/${name}`] = readFileSync(join(dir, name), 'utf8');
  }
  return tokenWarnings(files);
}
