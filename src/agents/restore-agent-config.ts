// The door before each agent starts: every path of the agent configuration table
// (agent-config-paths.ts) is put back as the configuration commit has it — the default
// branch's commit the run's manifests were read from (DispatchWorker.runBase), never a pull
// request's head and never a fork's. What a maintainer committed there stays and is read;
// what anyone else wrote (a fork's or a pull request's `.claude/settings.json` hooks, an
// earlier step that listed a path in `protected-paths`, a failed attempt's checkpoint, this
// attempt's previous invocation) is undone, so nobody's files can steer the agent. Ignored
// files count too: a root `.env` is usually in .gitignore and aider reads it all the same.
//
// The configuration is read once, before any agent runs (readAgentConfig), and written back
// from memory before each invocation (restoreAgentConfig). The checkout need not hold the
// commit: a shallow one, or a fork's history that the default branch has moved past, gets it
// fetched by id from the checkout's `origin`. What the restore put back is not the agent's
// work: withoutRestored takes it out of the changes the worker lists.
//
// git runs as collectChanges runs it (changes.ts): a private git directory, the checkout's
// objects borrowed read-only, nothing of the checkout's config but the origin's address (read
// as data, before any agent ran). Files are written without following symlinks an agent may
// have planted on the way.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { agentConfigRow } from './agent-config-paths.ts';
import { privateGit, type Checkout, type CollectedChanges } from './changes.ts';

export interface AgentConfig {
  /** The configuration commit, resolved to its full id. */
  commit: string;
  /** Each path of the table the commit has: its mode and bytes. */
  files: Map<string, { mode: string; content: Buffer }>;
}

export interface Restored {
  /** Paths put back to the configuration commit's content. */
  restored: string[];
  /** Paths the configuration commit does not have, removed. */
  removed: string[];
}

export class RunBaseMissingError extends Error {
  override name = 'RunBaseMissingError';
}

/**
 * The agent configuration `commit` holds, read before any agent runs. A commit the checkout
 * lacks is fetched by id from the checkout's `origin` (nothing else of the fetch is kept);
 * throws RunBaseMissingError when that fails too.
 */
export function readAgentConfig(checkout: Checkout, commit: string): AgentConfig {
  const tmp = mkdtempSync(join(tmpdir(), 'baton-config-'));
  try {
    const git = privateGit(checkout, tmp);
    const resolve = (): string | null => {
      try {
        return git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^{commit}`]).toString().trim();
      } catch {
        return null;
      }
    };
    let id = resolve();
    if (id === null) {
      const why = fetchById(checkout, git, commit);
      id = resolve();
      if (id === null) {
        throw new RunBaseMissingError(
          `the commit ${commit} that holds the agent configuration (the default branch's, as the run's manifests were read) is not in the checkout at ${checkout.root}, and fetching it from origin failed${why ? `: ${why}` : ''}; baton cannot start the agent with configuration nobody of the repository wrote. Check out the whole history (actions/checkout with fetch-depth: 0, as the worker workflow \`baton init\` writes does)`,
        );
      }
    }
    // What the commit has: "<mode> <type> <sha>\t<path>".
    const files = new Map<string, { mode: string; content: Buffer }>();
    for (const rec of git(['ls-tree', '-r', '-z', '--full-tree', id]).toString('utf8').split('\0')) {
      const m = /^(\d+) (\w+) ([0-9a-f]+)\t([\s\S]+)$/.exec(rec);
      if (m && m[2] === 'blob' && agentConfigRow(m[4]!)) files.set(m[4]!, { mode: m[1]!, content: git(['cat-file', 'blob', m[3]!]) });
    }
    return { commit: id, files };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Fetches `commit` alone (depth 1) from the checkout's origin into the private git directory
 * `git` runs in; returns why it failed, or null. The origin's address is read from the
 * checkout's config file as data (`git config --file`: no includes, nothing run).
 */
function fetchById(checkout: Checkout, git: (args: string[]) => Buffer, commit: string): string | null {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(commit)) return `${JSON.stringify(commit)} is not a commit id`;
  let origin: string;
  try {
    origin = execFileSync(checkout.git, ['config', '--file', join(dirname(checkout.objects), 'config'), '--get', 'remote.origin.url'], { env: { PATH: dirname(checkout.git), GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() }, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  } catch {
    return 'the checkout has no origin';
  }
  // A local path: git ignores --depth unless it is a file:// URL.
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(origin) || /^[^/]+@[^/]+:/.test(origin) ? origin : `file://${origin}`;
  try {
    git(['-c', 'protocol.version=2', '-c', 'protocol.ext.allow=never', 'fetch', '--quiet', '--depth=1', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', '--end-of-options', url, commit]);
    return null;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return stderr || (err as Error).message;
  }
}

/** Puts every agent configuration path of the checkout back as `config` has it. */
export function restoreAgentConfig(checkout: Checkout, config: AgentConfig): Restored {
  const tmp = mkdtempSync(join(tmpdir(), 'baton-restore-'));
  try {
    const git = privateGit(checkout, tmp);
    // What the work tree has, ignored files included (no exclude rules given).
    const present = git(['ls-files', '-z', '--others', '--cached']).toString('utf8').split('\0').filter(Boolean);
    const removed: string[] = [];
    for (const path of present) {
      if (!agentConfigRow(path) || config.files.has(path)) continue;
      rmSync(join(checkout.root, path), { force: true, recursive: true });
      removed.push(path);
    }
    // Folders of the table the agent made into a file or a link elsewhere: gone, then rebuilt.
    const restored: string[] = [];
    for (const [path, { mode, content }] of config.files) {
      writeInside(checkout.root, path, content, mode);
      restored.push(path);
    }
    return { restored, removed };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The changes without those the restore made and the agent left as they were: a table path
 * deleted that `config` lacks, or changed to exactly `config`'s bytes and mode. They are not the
 * agent's work (a fork's own `CLAUDE.md` is not "deleted" by its reviewer), and a later step
 * must not undo what an earlier one was allowed to write.
 */
export function withoutRestored(collected: CollectedChanges, config: AgentConfig): CollectedChanges {
  const restoredOnly = (path: string, status: string, mode: string): boolean => {
    if (!agentConfigRow(path)) return false;
    const want = config.files.get(path);
    if (status === 'deleted') return want === undefined;
    const got = collected.files.get(path);
    return want !== undefined && got !== undefined && want.mode === mode && Buffer.from(got).equals(want.content);
  };
  const dropped = new Set(collected.changes.filter((c) => restoredOnly(c.path, c.status, c.mode)).map((c) => c.path));
  if (!dropped.size) return collected;
  return {
    ...collected,
    changes: collected.changes.filter((c) => !dropped.has(c.path)),
    files: new Map([...collected.files].filter(([path]) => !dropped.has(path))),
    diffstat: collected.diffstat.filter((d) => !dropped.has(d.path)),
  };
}

/** Writes `path` under `root`, replacing any symlink or file on the way by a real folder. */
function writeInside(root: string, path: string, content: Buffer, mode: string): void {
  const parts = path.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) rmSync(dir, { force: true });
    if (!st || !st.isDirectory()) mkdirSync(dir);
  }
  const file = join(root, path);
  rmSync(file, { force: true, recursive: true });
  if (mode === '120000') symlinkSync(content.toString('utf8'), file);
  else writeFileSync(file, content, { mode: mode === '100755' ? 0o755 : 0o644 });
}
