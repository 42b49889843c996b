// Paths a worker's result may not change unless its step opts in (`protected-paths: allow`,
// or a list naming them): files that steer what runs next rather than being the work itself.
// Workflow files run with the repository's secrets; `.agents/` holds baton's manifests
// (which steps run, with which permissions); agent configuration (the table of
// agent-config-paths.ts: CLAUDE.md, .aider.conf.yml, a root .env …) is read as instructions,
// settings and tools to start by the next step's agent. An agent that read an issue may have
// been told to plant any of them. Matched per component, case-insensitively and in the
// spellings case-insensitive file systems take for the same name (git-path.ts).
import { agentConfigRow } from './agent-config-paths.ts';
import { comparableName } from './git-path.ts';

/** The manifest key (on a step) that lets its results change protected paths. */
export const PROTECTED_PATHS_KEY = 'protected-paths';

const WORKFLOW = 'a GitHub Actions workflow';

/** Directories at the repository root: workflow files and baton's own manifests. */
const ROOT_DIRS: ReadonlyArray<{ dirs: string[]; what: string }> = [
  { dirs: ['.github', 'workflows'], what: WORKFLOW },
  { dirs: ['.github', 'actions'], what: 'a local action run by workflows' },
];

/** What a protected path is (for the message), or undefined when the path is not protected. */
export function protectedPathKind(path: string): string | undefined {
  const parts = path.split('/').map(comparableName);
  for (const { dirs, what } of ROOT_DIRS) {
    if (dirs.every((d, i) => parts[i] === d)) return what;
  }
  // Agent configuration (the table) before `.agents/`: `.agents/skills/` is read by agents.
  const row = agentConfigRow(path);
  if (row) return row.path === '.env' ? 'an environment file agent CLIs read' : 'agent configuration';
  if (parts[0] === '.agents') return "baton's manifests";
  return undefined;
}

/**
 * Whether `path` is one of the protected paths a step lists (`protected-paths: [..]`): the
 * path itself, or inside a listed folder (ending in `/`), compared as protectedPathKind does.
 */
export function listedPath(path: string, listed: readonly string[]): boolean {
  const parts = path.split('/').map(comparableName);
  return listed.some((entry) => {
    const want = entry.replace(/\/$/, '').split('/').map(comparableName);
    const folder = entry.endsWith('/');
    return want.every((w, i) => parts[i] === w) && (folder ? parts.length > want.length : parts.length === want.length);
  });
}

/** The protected ones among `paths`, with what each is. */
export function protectedPaths(paths: readonly string[]): { path: string; what: string }[] {
  return paths.flatMap((path) => {
    const what = protectedPathKind(path);
    return what ? [{ path, what }] : [];
  });
}

/**
 * The message of a result refused for the protected paths it changes. `workflows`: what it
 * takes beyond the key for GitHub to accept workflow files in this run's mode, said when some
 * of the paths are workflow files (the key alone would not do for them).
 */
export function protectedPathsMessage(found: readonly { path: string; what: string }[], workflows?: string): string {
  const list = found.map((f) => `${f.path} (${f.what})`).join(', ');
  const more = workflows && found.some((f) => f.what === WORKFLOW) ? `; for the workflow files that is not enough: ${workflows}` : '';
  return `the worker's result changes protected paths: ${list}. These steer later workflows and agents, so baton does not write them unless the step lists them in \`${PROTECTED_PATHS_KEY}\` (or sets \`${PROTECTED_PATHS_KEY}: allow\`)${more}`;
}
