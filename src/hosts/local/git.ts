// The few git operations a local run needs, run as child processes in the user's
// repository. Nothing here checks out a branch in the user's working tree: every write
// happens in a worktree under .baton/worktrees/ or through refs.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

export class GitError extends Error {}

/** Identity for baton's own commits when the environment names none (GIT_AUTHOR_* wins). */
const IDENTITY = ['-c', 'user.name=baton', '-c', 'user.email=baton@localhost'];

export function git(cwd: string, args: string[], opts: { allowFail?: boolean; input?: string } = {}): string {
  try {
    return execFileSync('git', [...IDENTITY, ...args], {
      cwd,
      encoding: 'utf8',
      input: opts.input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    }).trimEnd();
  } catch (err) {
    if (opts.allowFail) return '\0failed';
    const e = err as { stderr?: string; message: string };
    throw new GitError(`git ${args.join(' ')} (in ${cwd}) failed: ${(e.stderr ?? '').trim() || e.message}`);
  }
}

export const failed = (out: string): boolean => out === '\0failed';

export function repoRoot(dir: string): string {
  const out = git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true });
  if (failed(out)) throw new GitError(`${dir} is not inside a git repository (baton run --local needs a git checkout)`);
  return out;
}

export function revParse(repo: string, rev: string): string | null {
  const out = git(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { allowFail: true });
  return failed(out) || out === '' ? null : out;
}

export function branchExists(repo: string, branch: string): boolean {
  return revParse(repo, `refs/heads/${branch}`) !== null;
}

/** The branch checked out in the user's checkout, or null on a detached HEAD. */
export function currentBranch(repo: string): string | null {
  const out = git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
  return failed(out) || out === '' ? null : out;
}

export function isAncestor(repo: string, commit: string, of: string): boolean {
  return !failed(git(repo, ['merge-base', '--is-ancestor', commit, of], { allowFail: true }));
}

/** Points `branch` at `sha`, creating it or moving it (step branches are reused by attempts). */
export function setBranch(repo: string, branch: string, sha: string): void {
  git(repo, ['update-ref', `refs/heads/${branch}`, sha]);
}

/** A detached worktree at `rev`; an old one at the same path (from a killed run) is replaced. */
export function addWorktree(repo: string, path: string, rev: string): void {
  removeWorktree(repo, path);
  git(repo, ['worktree', 'add', '--detach', '--force', path, rev]);
}

/** A worktree with `branch` checked out (the run branch, for merges). */
export function branchWorktree(repo: string, path: string, branch: string): void {
  if (existsSync(path)) {
    // Left by a killed run, maybe in the middle of a merge: make it clean again.
    git(path, ['merge', '--abort'], { allowFail: true });
    git(path, ['reset', '--hard', '--quiet', 'HEAD']);
    return;
  }
  git(repo, ['worktree', 'prune']);
  git(repo, ['worktree', 'add', '--force', path, branch]);
}

export function removeWorktree(repo: string, path: string): void {
  if (existsSync(path)) {
    git(repo, ['worktree', 'remove', '--force', path], { allowFail: true });
    rmSync(path, { recursive: true, force: true });
  }
  git(repo, ['worktree', 'prune']);
}

/** Commits exactly `paths` (added, modified or deleted) in a worktree; returns the commit. */
export function commitPaths(worktree: string, paths: string[], message: string): string {
  git(worktree, ['add', '--all', '--', ...paths]);
  git(worktree, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', message]);
  return git(worktree, ['rev-parse', 'HEAD']);
}

/** The remote a run branch is pushed to: the base branch's own remote, else `origin`. */
export function pushRemote(repo: string, base: string): string {
  const out = git(repo, ['config', '--get', `branch.${base}.remote`], { allowFail: true });
  return failed(out) || out === '' || out === '.' ? 'origin' : out;
}

/** Keeps `.baton/` out of `git status` without touching a tracked file (.git/info/exclude). */
export function excludeBatonDir(repo: string): void {
  if (!failed(git(repo, ['check-ignore', '-q', '.baton/'], { allowFail: true }))) return;
  const rel = git(repo, ['rev-parse', '--git-path', 'info/exclude']);
  const path = isAbsolute(rel) ? rel : join(repo, rel);
  mkdirSync(dirname(path), { recursive: true });
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  appendFileSync(path, `${text === '' || text.endsWith('\n') ? '' : '\n'}.baton/\n`);
}
