// Removing a finished run's branches: the run branch `baton/<run>` and its step branches
// `baton/steps/<run>/…`. Only once the run is over and its pull request merged or closed:
// until then the branch is the run's result (a succeeded run without a PR), what a PR shows,
// or what a `/baton retry` of a failed run goes on from. `keepBranches` (BATON_KEEP_BRANCHES,
// the Action's `keep-branches`) keeps them all.
import { isTerminal, type RunState } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { deleteRef, refsUnder } from './refs.ts';
import { statusOf } from './client.ts';

/** Why a run's branches stay, or undefined when they may go (its PR given as last seen, if known). */
export function branchesNeeded(gh: RepoContext, state: RunState, pr?: { state: string } | null): string | undefined {
  if (gh.keepBranches) return 'branches are kept (keep-branches)';
  if (!isTerminal(state.status)) return `run ${state.runId} is ${state.status}`;
  if (!state.pr) return `run ${state.runId} opened no pull request: its branch holds the result`;
  if (pr && pr.state !== 'closed') return `#${state.pr.number} is open`;
  return undefined;
}

/** Whether the run's pull request is closed (merged or not): one read; a PR gone is closed. */
export async function pullClosed(gh: RepoContext, number: number): Promise<boolean> {
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: gh.owner, repo: gh.repo, pull_number: number });
    return res.data.state === 'closed';
  } catch (err) {
    if (statusOf(err) === 404 || statusOf(err) === 410) return true;
    throw err;
  }
}

/**
 * Deletes the step branches, then the run branch (last: until it goes, the sweep still lists the
 * run and finishes an interrupted removal). Returns how many branches were deleted.
 */
export async function removeRunBranches(gh: RepoContext, state: RunState): Promise<number> {
  let deleted = 0;
  for (const ref of await refsUnder(gh, `heads/baton/steps/${state.runId}/`)) if (await deleteRef(gh, ref)) deleted++;
  if (state.runBranch === `baton/${state.runId}` && (await deleteRef(gh, `heads/${state.runBranch}`))) deleted++;
  return deleted;
}
