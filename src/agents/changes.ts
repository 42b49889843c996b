// What the agent changed, relative to the commit it started from: added, modified and
// deleted files with their git modes (executable bit, symlinks), untracked files included,
// ignored files and .git left out.
//
// The checkout is the agent's: it may have planted `core.fsmonitor`, `core.hooksPath`, a
// clean filter, a textconv driver or an `include.path` in `.git/config`, in `~/.gitconfig`
// or through `.gitattributes`, or a `git` of its own on PATH — all of which a plain
// `git add` in the checkout would execute, with the worker's environment. So git never runs
// under the checkout's repository: it runs against a private git directory baton makes
// (its own config, no hooks, objects borrowed read-only through `objects/info/alternates`)
// with the checkout as `--work-tree`, with a minimal environment (no secrets, a private
// HOME, no system or global config), and by the absolute path of the `git` found before the
// agent ran. A `.gitattributes` may still name a filter or diff driver: none is defined in
// the only config git reads, so none runs.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { FileChange, FileMode } from './result.ts';

export interface DiffStatLine {
  path: string;
  /** Lines added / deleted; null for binary files. */
  added: number | null;
  deleted: number | null;
}

export interface CollectedChanges {
  changes: FileChange[];
  /** Content of added and modified files as git stores it (a symlink's content is its target). */
  files: Map<string, Uint8Array>;
  diffstat: DiffStatLine[];
  /** Things left out, said plainly (nested repositories, submodules). */
  warnings: string[];
}

/** The checkout as found before the agent ran: nothing here is read from it again later. */
export interface Checkout {
  /** The work tree's top folder. */
  root: string;
  /** The checkout's object store (read-only for baton). */
  objects: string;
  /** The base commit, resolved to its full id. */
  base: string;
  /** Absolute path of the git binary, found on the worker's PATH before the agent ran. */
  git: string;
  /** The checkout's `info/exclude` patterns (data only: nothing in them runs). */
  exclude: string;
  /** The repository uses SHA-256 object ids (`extensions.objectFormat`). */
  sha256: boolean;
}

const MODES: readonly string[] = ['100644', '100755', '120000'];

/** The first executable `git` on PATH, as an absolute path. */
export function findGit(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  throw new Error('git is not installed (not found on PATH); the worker needs it to list what the agent changed');
}

/** The work tree root and git directory holding `cwd`, found by walking up, without running git. */
function locate(cwd: string): { root: string; gitDir: string } | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      if (statSync(dotGit).isDirectory()) return { root: dir, gitDir: dotGit };
      // A worktree or a separated git dir: `.git` is a file "gitdir: <path>".
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
      if (m) return { root: dir, gitDir: resolve(dir, m[1]!) };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** A minimal environment: no secret of the worker's, no config but baton's own. */
function safeEnv(git: string, home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: [dirname(git), '/usr/bin', '/bin'].join(delimiter),
    HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  };
}

/**
 * Settings passed on every call, on top of the private config: belt and braces should a
 * config ever be read from somewhere else.
 */
const OVERRIDES = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', '-c', 'core.attributesFile=/dev/null', '-c', 'core.excludesFile=/dev/null'];

function run(git: string, env: NodeJS.ProcessEnv, args: string[], input?: string): Buffer {
  return execFileSync(git, [...OVERRIDES, ...args], { cwd: env.HOME, env, input, maxBuffer: 1024 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * A private git directory: its own config, no hooks, the checkout's objects as alternates.
 * With `refsOf` (the checkout's git dirs), its HEAD and refs are visible too, read-only, so
 * that a base given by name resolves without reading the checkout's config.
 */
function privateRepo(tmp: string, c: Pick<Checkout, 'objects' | 'sha256' | 'exclude'>, refsOf?: { gitDir: string; common: string }): string {
  const dir = join(tmp, 'git');
  for (const d of ['objects/info', 'info']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'config'), `[core]\n\trepositoryformatversion = ${c.sha256 ? 1 : 0}\n\tbare = false\n${c.sha256 ? '[extensions]\n\tobjectformat = sha256\n' : ''}`);
  writeFileSync(join(dir, 'objects/info/alternates'), `${c.objects}\n`);
  writeFileSync(join(dir, 'info/exclude'), c.exclude);
  if (refsOf) {
    const head = join(refsOf.gitDir, 'HEAD');
    writeFileSync(join(dir, 'HEAD'), existsSync(head) ? readFileSync(head) : 'ref: refs/heads/baton\n');
    symlinkSync(join(refsOf.common, 'refs'), join(dir, 'refs'));
    const packed = join(refsOf.common, 'packed-refs');
    if (existsSync(packed)) symlinkSync(packed, join(dir, 'packed-refs'));
  } else {
    mkdirSync(join(dir, 'refs/heads'), { recursive: true });
    writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/baton\n');
  }
  return dir;
}

/** A git runner against a private git directory with the checkout as work tree. */
export function privateGit(c: Checkout, tmp: string): (args: string[], input?: string) => Buffer {
  const gitDir = privateRepo(tmp, c);
  const home = join(tmp, 'home');
  mkdirSync(home, { recursive: true });
  const env = safeEnv(c.git, home, { GIT_DIR: gitDir, GIT_WORK_TREE: c.root, GIT_INDEX_FILE: join(gitDir, 'index') });
  return (args, input) => run(c.git, env, args, input);
}

/**
 * Finds the checkout holding `cwd` and its base commit — before the agent runs, so that
 * what is found (git itself, the object store, the base) is not the agent's to change.
 * Fails with a clear message when `cwd` is not a checkout that has `base`.
 */
export function openCheckout(cwd: string, base: string, env: NodeJS.ProcessEnv = process.env): Checkout {
  const git = findGit(env);
  const found = locate(cwd);
  if (!found) throw new Error(`${cwd} is not a git checkout; the worker needs one to know what the agent changed`);
  const { root, gitDir } = found;
  // A linked worktree keeps its objects in the main repository ("commondir").
  const commonFile = join(gitDir, 'commondir');
  const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
  const objects = join(common, 'objects');
  const excludeFile = join(common, 'info', 'exclude');
  const exclude = existsSync(excludeFile) ? readFileSync(excludeFile, 'utf8') : '';
  // Read as text, not through git: only the object format is taken from the checkout's config.
  const configFile = join(common, 'config');
  const sha256 = existsSync(configFile) && /^\s*objectformat\s*=\s*sha256\s*$/im.test(readFileSync(configFile, 'utf8'));
  const tmp = mkdtempSync(join(tmpdir(), 'baton-git-'));
  try {
    const home = join(tmp, 'home');
    mkdirSync(home);
    // Resolved in a private git dir that sees the checkout's objects and refs but not its
    // config (which could, say, make a missing object start a fetch through a planted
    // transport); everything later uses the full id.
    const env = safeEnv(git, home, { GIT_DIR: privateRepo(tmp, { objects, sha256, exclude }, { gitDir, common }) });
    let id: string;
    try {
      id = run(git, env, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]).toString().trim();
    } catch {
      throw new Error(`the base commit ${base} is not in the checkout at ${root}; check out that commit (actions/checkout with ref: the base) before the worker runs`);
    }
    return { root, objects, base: id, git, exclude, sha256 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function collectChanges(checkout: Checkout): CollectedChanges {
  const tmp = mkdtempSync(join(tmpdir(), 'baton-changes-'));
  try {
    const git = privateGit(checkout, tmp);
    const { base } = checkout;
    // The index starts from the base tree (no stat data, so every file is hashed: the
    // checkout's own index is the agent's and is not trusted to say what is unchanged).
    git(['read-tree', base]);
    git(['add', '--all', '--', '.']);

    const warnings: string[] = [];
    const changes: FileChange[] = [];
    const blobs: { path: string; sha: string }[] = [];
    const raw = git(['diff-index', '--cached', '--raw', '-z', '--no-renames', base]).toString('utf8').split('\0');
    for (let i = 0; i + 1 < raw.length; i += 2) {
      // ":<old mode> <new mode> <old sha> <new sha> <status>" NUL "<path>"
      const [oldMode, newMode, , newSha, letter] = raw[i]!.slice(1).split(' ');
      const path = raw[i + 1]!;
      const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
      const mode = status === 'deleted' ? oldMode! : newMode!;
      if (!MODES.includes(mode)) {
        warnings.push(`${path} left out: a ${mode === '160000' ? 'nested repository or submodule' : `mode ${mode} entry`} is not a file baton can carry`);
        continue;
      }
      changes.push({ path, status, mode: mode as FileMode });
      if (status !== 'deleted') blobs.push({ path, sha: newSha! });
    }

    const files = readBlobs(git, blobs);
    const diffstat: DiffStatLine[] = [];
    // --no-ext-diff and --no-textconv: a diff driver named in .gitattributes runs nothing.
    const numstat = git(['diff-index', '--cached', '--numstat', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', base]).toString('utf8').split('\0');
    for (const rec of numstat) {
      const m = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(rec);
      if (!m || !changes.some((c) => c.path === m[3])) continue;
      diffstat.push({ path: m[3]!, added: m[1] === '-' ? null : Number(m[1]), deleted: m[2] === '-' ? null : Number(m[2]) });
    }
    return { changes, files, diffstat, warnings };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Reads blobs in one `git cat-file --batch` call ("<sha> blob <size>\n<bytes>\n" each). */
function readBlobs(git: (args: string[], input?: string) => Buffer, blobs: { path: string; sha: string }[]): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  if (!blobs.length) return files;
  const out = git(['cat-file', '--batch'], blobs.map((b) => b.sha).join('\n') + '\n');
  let pos = 0;
  for (const b of blobs) {
    const nl = out.indexOf(0x0a, pos);
    const header = out.subarray(pos, nl).toString('utf8').split(' ');
    if (header[1] !== 'blob') throw new Error(`git cat-file could not read ${b.path} (${b.sha}): ${header.join(' ')}`);
    const size = Number(header[2]);
    files.set(b.path, new Uint8Array(out.subarray(nl + 1, nl + 1 + size)));
    pos = nl + 1 + size + 1;
  }
  return files;
}
