// Merging a step's commit into the run branch with `git merge`, in the run branch's own
// worktree (the user's checkout is never used). Safe to repeat after a kill: a commit
// the run branch already contains is reported as merged at the current head.
import { join } from 'node:path';
import type { MergeStepBranch, RunEvent } from '../../engine/index.ts';
import { branchWorktree, failed, git, isAncestor, revParse } from './git.ts';
import { worktreesDir } from './store.ts';

export const runWorktree = (repo: string, runId: string): string => join(worktreesDir(repo, runId), '_run');

export function mergeStep(cmd: MergeStepBranch, repo: string): RunEvent[] {
  const ref = { step: cmd.step, slot: cmd.slot, attempt: cmd.attempt };
  const key = `${cmd.key}/result`;
  const at = Date.now();
  if (isAncestor(repo, cmd.commit, `refs/heads/${cmd.into}`)) {
    return [{ type: 'merge.completed', key, at, ...ref, head: revParse(repo, `refs/heads/${cmd.into}`)! }];
  }
  const wt = runWorktree(repo, cmd.runId);
  branchWorktree(repo, wt, cmd.into);
  const out = git(wt, ['merge', '--no-ff', '--no-edit', '-m', cmd.message, cmd.commit], { allowFail: true });
  if (failed(out)) {
    const conflicted = git(wt, ['diff', '--name-only', '--diff-filter=U'], { allowFail: true });
    const files = failed(conflicted) ? [] : conflicted.split('\n').filter(Boolean);
    git(wt, ['merge', '--abort'], { allowFail: true });
    git(wt, ['reset', '--hard', '--quiet', 'HEAD'], { allowFail: true });
    // The local job put the commit on its step branch (jobs.ts): say where to look.
    return [{ type: 'merge.conflicted', key, at, ...ref, files, branch: cmd.branch }];
  }
  return [{ type: 'merge.completed', key, at, ...ref, head: git(wt, ['rev-parse', 'HEAD']) }];
}
