// What the agent changed, relative to the commit it started from: added, modified and
// deleted files with their git modes (executable bit, symlinks), untracked files included,
// ignored files and .git left out. Git is asked through a private copy of the index, so
// the checkout's own index (and anything the agent staged or committed) is left alone and
// does not change the answer.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

const MODES: readonly string[] = ['100644', '100755', '120000'];

function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv, input?: string): Buffer {
  return execFileSync('git', args, { cwd, env: env ?? process.env, input, maxBuffer: 1024 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Fails with a clear message when `cwd` is not a checkout that has `base`. */
export function checkBase(cwd: string, base: string): string {
  let root: string;
  try {
    root = git(cwd, ['rev-parse', '--show-toplevel']).toString().trim();
  } catch {
    throw new Error(`${cwd} is not a git checkout; the worker needs one to know what the agent changed`);
  }
  try {
    git(root, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]);
  } catch {
    throw new Error(`the base commit ${base} is not in the checkout at ${root}; check out that commit (actions/checkout with ref: the base) before the worker runs`);
  }
  return root;
}

export function collectChanges(cwd: string, base: string): CollectedChanges {
  const root = git(cwd, ['rev-parse', '--show-toplevel']).toString().trim();
  const tmp = mkdtempSync(join(tmpdir(), 'baton-index-'));
  try {
    const index = join(tmp, 'index');
    const env = { ...process.env, GIT_INDEX_FILE: index };
    // Starting from a copy of the real index keeps git's stat cache: only touched files are
    // hashed. The copy keeps the original's mtime, which git's "racy entry" check compares
    // against: a file rewritten with the same size in the same second is then still seen.
    try {
      const real = resolve(root, git(root, ['rev-parse', '--git-path', 'index']).toString().trim());
      const st = statSync(real);
      copyFileSync(real, index);
      utimesSync(index, st.atime, st.mtime);
    } catch {
      git(root, ['read-tree', base], env);
    }
    git(root, ['add', '--all', '--', '.'], env);

    const warnings: string[] = [];
    const changes: FileChange[] = [];
    const blobs: { path: string; sha: string }[] = [];
    const raw = git(root, ['diff-index', '--cached', '--raw', '-z', '--no-renames', base], env).toString('utf8').split('\0');
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

    const files = readBlobs(root, blobs);
    const diffstat: DiffStatLine[] = [];
    const numstat = git(root, ['diff-index', '--cached', '--numstat', '-z', '--no-renames', base], env).toString('utf8').split('\0');
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
function readBlobs(root: string, blobs: { path: string; sha: string }[]): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  if (!blobs.length) return files;
  const out = git(root, ['cat-file', '--batch'], undefined, blobs.map((b) => b.sha).join('\n') + '\n');
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
