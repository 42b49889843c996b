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

/** Points the step ref of `stepBranch` at `sha` (create, or move it, forced: it keeps the latest attempt's); its full name. */
export async function keepStepCommit(gh: RepoContext, stepBranch: string, sha: string): Promise<string> {
  const ref = stepRef(stepBranch);
  // An earlier attempt made it (or another process): moved where it belongs now.
  if (!(await createRef(gh, ref, sha)).created) await updateRef(gh, ref, sha, true);
  return ref;
}
