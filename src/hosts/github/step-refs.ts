// Step refs: where GitHub keeps a step's commit that the run branch does not have.
import type { RepoContext } from './client.ts';
import { createRef, updateRef } from './git-refs.ts';

/**
 * Where GitHub keeps a step's commit the run branch does not have (a failed attempt's checkpoint,
 * a commit that conflicted): the engine's step branch name (`baton/steps/<run>/<step>`, a branch in
 * a local run) under `refs/`, not `refs/heads/` — agent-written code no person has looked at, and
 * GitHub starts `on: push` workflows for a branch an App makes, not for such a ref (readings.ts
 * `customRefPushRuns`). Workers fetch it by sha.
 */
export const stepRef = (stepBranch: string): string => `refs/${stepBranch}`;

/**
 * Where a run's head is kept while it is held off the run branch (engine/held.ts: an `approve`
 * step has not passed): workers fetch it by sha from here, and no push workflow starts for it.
 */
export const heldHeadRef = (runId: string): string => `refs/baton/heads/${runId}`;

/** Points `ref` (baton's own, not a branch) at `sha`: create, or move it (forced: it is baton's record of unreviewed work). */
export async function pointRef(gh: RepoContext, ref: string, sha: string): Promise<void> {
  // An earlier attempt made it (or another process): moved where it belongs now.
  if (!(await createRef(gh, ref, sha)).created) await updateRef(gh, ref, sha, true);
}

/** Points the step ref of `stepBranch` at `sha` (create, or move it, forced: it keeps the latest attempt's); its full name. */
export async function keepStepCommit(gh: RepoContext, stepBranch: string, sha: string): Promise<string> {
  const ref = stepRef(stepBranch);
  await pointRef(gh, ref, sha);
  return ref;
}
