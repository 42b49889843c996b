// Removing a finished run's branches: the run branch `baton/<run>` and its step refs
// `refs/baton/steps/<run>/…` (step branches `baton/steps/<run>/…` before them). Only once the run is over and its pull request merged or closed:
// until then the branch is the run's result (a succeeded run without a PR), what a PR shows,
// or what a `/baton retry` of a failed run goes on from. `keepBranches` (BATON_KEEP_BRANCHES,
// the Action's `keep-branches`) keeps them all.
import { isTerminal, type RunState } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { createRef, deleteRef, readRef, refsUnder } from './git-refs.ts';
import { messageOf, refusedForGood, statusOf } from './client.ts';
import { catchUpWithDefaultBranch, defaultBranchTip, RunBranchRefused, workflowRuleRefusal } from './workflow-rule.ts';
import { heldHeadRef, stepRef } from './step-refs.ts';

/** Why a run's branches stay, or undefined when they may go (its PR given as last seen, if known). */
export function branchesNeeded(gh: RepoContext, state: RunState, pr?: { state: string } | null): string | undefined {
  if (gh.keepBranches) return 'branches are kept (keep-branches)';
  if (!isTerminal(state.status)) return `run ${state.runId} is ${state.status}`;
  // Unless its head is on its base branch already (holdsNothingOfItsOwn): then the sweep removes it.
  if (!state.pr) return `run ${state.runId} opened no pull request: its branch holds the result`;
  if (pr && pr.state !== 'closed') return `#${state.pr.number} is open`;
  return undefined;
}

/**
 * Whether a finished run that opened no pull request has nothing of its own on its branches: no
 * step branch (a failed attempt's checkpoint) and a head its base branch already has (a review,
 * a triage, an upkeep that changed nothing — their steps commit nothing). Such a run branch only
 * names a commit of another branch, so it may go; kept, every review and every triaged issue
 * would leave one for ever, and every sweep after a restart would read each of their records.
 * Two reads (three when the base branch is gone: then the default branch is asked). A head
 * that no such branch has keeps the branch (a base branch rewritten, a pull request squashed).
 */
export async function holdsNothingOfItsOwn(gh: RepoContext, state: RunState): Promise<boolean> {
  if (gh.keepBranches || !isTerminal(state.status) || state.pr || !state.head || state.runBranch !== `baton/${state.runId}`) return false;
  try {
    if ((await stepRefs(gh, state.runId)).length > 0) return false;
    // A fork run's branch names a commit of the default branch, never the run's head (the fork's
    // commit, engine/start.ts), and a fork run writes nothing: it holds nothing of its own.
    if (state.fork) return true;
    return (await onBranch(gh, state.baseBranch, state.head)) ?? (state.baseBranch !== gh.defaultBranch && (await onBranch(gh, gh.defaultBranch, state.head))) ?? false;
  } catch (err) {
    if (refusedForGood(err)) return false;
    throw err;
  }
}

/**
 * The run's step refs: `refs/baton/steps/<run>/…` (apply.ts `stepRef`), and the step branches
 * `refs/heads/baton/steps/<run>/…` that versions before it made. Two listings.
 */
async function stepRefs(gh: RepoContext, runId: string): Promise<Array<{ ref: string; sha: string }>> {
  return [...(await refsUnder(gh, `${stepRef(`baton/steps/${runId}/`).slice('refs/'.length)}`)), ...(await refsUnder(gh, `heads/baton/steps/${runId}/`))];
}

/** Whether `branch` has commit `sha`; undefined when the branch is gone (a pull request's head branch deleted after its merge). */
async function onBranch(gh: RepoContext, branch: string, sha: string): Promise<boolean | undefined> {
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { owner: gh.owner, repo: gh.repo, basehead: `${branch}...${sha}` });
    return res.data.ahead_by === 0;
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
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
  for (const { ref } of await stepRefs(gh, state.runId)) if (await deleteRef(gh, ref)) deleted++;
  if (await deleteRef(gh, heldHeadRef(state.runId))) deleted++;
  if (state.runBranch === `baton/${state.runId}` && (await deleteRef(gh, `heads/${state.runBranch}`))) deleted++;
  return deleted;
}

/**
 * Before a `/baton retry` of a finished run: its run branch, made again at the run's head when it
 * was deleted (its pull request was merged or closed). Undefined when the run may go on — the
 * branch is there, or was made again (also when GitHub's workflow-file rule refused the old head:
 * then from the default branch, with the head merged in, as a run branch catches up; `head` says
 * where it now is) — else why it cannot, for the thread. One read when the branch is there.
 */
export async function restoreRunBranch(gh: RepoContext, state: RunState): Promise<{ head?: string; refused?: string }> {
  const branch = state.runBranch;
  if (!branch.startsWith('baton/') || !state.head) return {};
  if ((await readRef(gh, `heads/${branch}`)) !== null) return {};
  // Made meanwhile (another process retrying too, or this one before a lost answer): there it is.
  const create = async (sha: string): Promise<void> => void (await createRef(gh, `refs/heads/${branch}`, sha));
  // A fork run's head is the fork's commit, which never becomes a branch (engine/start.ts): its
  // branch is made again where the default branch is, and the run goes on from its head as it was.
  if (state.fork) {
    await create((await defaultBranchTip(gh)).sha);
    return {};
  }
  const gone = `its branch \`${branch}\` was deleted when its pull request${state.pr ? ` #${state.pr.number}` : ''} was closed`;
  try {
    await create(state.head);
    return {};
  } catch (err) {
    if (workflowRuleRefusal(err)) return catchUpNewBranch(gh, state, create, gone, err);
    if (!refusedForGood(err)) throw err;
    return { refused: `${gone}, and GitHub refuses to make it again at the run's last commit ${state.head.slice(0, 7)} (${statusOf(err)} ${messageOf(err)})` };
  }
}

/** The run branch made from the default branch's tip, then the run's head merged into it (workflow-rule.ts). */
async function catchUpNewBranch(gh: RepoContext, state: RunState, create: (sha: string) => Promise<void>, gone: string, why: unknown): Promise<{ head?: string; refused?: string }> {
  await create((await defaultBranchTip(gh)).sha);
  try {
    return { head: await catchUpWithDefaultBranch(gh, state.runBranch, state.head!, why) };
  } catch (err) {
    if (!(err instanceof RunBranchRefused)) throw err;
    // Not left half made: the sweep would only delete it again.
    await deleteRef(gh, `heads/${state.runBranch}`);
    return { refused: `${gone}, and GitHub refuses to make it again at the run's last commit ${state.head!.slice(0, 7)}, whose .github/workflows differ from ${gh.defaultBranch}'s, even with ${gh.defaultBranch} merged in (${statusOf(why)} ${messageOf(why)}; ${messageOf(err)})` };
  }
}
