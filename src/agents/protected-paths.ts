// Paths a worker's result may not change unless its step opts in (`protected-paths: allow`):
// files that steer what runs next rather than being the work itself. Workflow files run with
// the repository's secrets; `.agents/` holds baton's manifests (which steps run, with which
// permissions); agent configuration (CLAUDE.md, AGENTS.md, .claude/, .mcp.json …) is read
// as instructions, and tools to start, by the next step's agent. An agent that read an
// issue may have been told to plant any of them. Matched per component, case-insensitively
// and in the spellings case-insensitive file systems take for the same name (git-path.ts).
import { comparableName } from './git-path.ts';

/** The manifest key (on a step) that lets its results change protected paths. */
export const PROTECTED_PATHS_KEY = 'protected-paths';

const WORKFLOW = 'a GitHub Actions workflow';

/** Directories at the repository root: workflow files and baton's own manifests. */
const ROOT_DIRS: ReadonlyArray<{ dirs: string[]; what: string }> = [
  { dirs: ['.github', 'workflows'], what: WORKFLOW },
  { dirs: ['.github', 'actions'], what: 'a local action run by workflows' },
  { dirs: ['.agents'], what: "baton's manifests" },
  { dirs: ['.github', 'instructions'], what: 'agent configuration' },
  { dirs: ['.github', 'prompts'], what: 'agent configuration' },
  { dirs: ['.github', 'chatmodes'], what: 'agent configuration' },
  { dirs: ['.github', 'copilot-instructions.md'], what: 'agent configuration' },
];

/** Agent configuration directories, at any depth (agents read nested ones too). */
const AGENT_DIRS = new Set(['.claude', '.codex', '.gemini', '.cursor', '.windsurf', '.clinerules', '.roo', '.continue', '.junie', '.amazonq', '.kiro', '.opencode']);

/** Agent configuration files, at any depth. */
const AGENT_FILES = new Set(['claude.md', 'claude.local.md', 'agents.md', 'agents.override.md', 'gemini.md', '.mcp.json', '.cursorrules', '.windsurfrules', '.clinerules', '.roorules', 'opencode.json', 'opencode.jsonc']);

/** What a protected path is (for the message), or undefined when the path is not protected. */
export function protectedPathKind(path: string): string | undefined {
  const parts = path.split('/').map(comparableName);
  for (const { dirs, what } of ROOT_DIRS) {
    if (dirs.every((d, i) => parts[i] === d)) return what;
  }
  if (parts.slice(0, -1).some((p) => AGENT_DIRS.has(p))) return 'agent configuration';
  const last = parts.at(-1) ?? '';
  if (AGENT_FILES.has(last) || AGENT_DIRS.has(last)) return 'agent configuration';
  return undefined;
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
  return `the worker's result changes protected paths: ${list}. These steer later workflows and agents, so baton does not write them unless the step sets \`${PROTECTED_PATHS_KEY}: allow\`${more}`;
}
