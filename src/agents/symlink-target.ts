// Symlinks in a worker's result: git stores a symlink as a blob holding its target, and
// whatever checks the branch out next (the next step's worker, CI, a person) follows it.
// A target that is absolute (`/proc/self/environ`, `~/.ssh`), climbs out of the repository,
// or goes through git's own directory reads or writes what the repository never held.
import { posix } from 'node:path';
import { touchesGitDir } from './git-path.ts';

/** Why the symlink at `path` pointing to `target` is refused, or undefined when it stays inside the repository. */
export function symlinkProblem(path: string, target: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (target === '' || /[\u0000-\u001f\u007f]/.test(target)) return 'its target is empty or holds control characters';
  if (target.startsWith('/') || target.startsWith('~') || target.includes('\\') || /^[A-Za-z]:/.test(target)) return 'its target is an absolute path';
  if (touchesGitDir(target)) return "its target goes through git's own directory";
  const resolved = resolveLink(path, target);
  if (resolved === '..' || resolved.startsWith('../')) return 'its target is outside the repository';
  if (touchesGitDir(resolved)) return "its target goes through git's own directory";
  return undefined;
}

/** The repository path a relative symlink at `path` points to (may start with `../` when it leaves). */
export function resolveLink(path: string, target: string): string {
  return posix.normalize(posix.join(posix.dirname(path), target));
}
