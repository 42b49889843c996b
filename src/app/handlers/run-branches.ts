// Which runs a CI result on a commit is for: the run branches `baton/<run-id>` whose head is
// the commit. GitHub names a commit's branch loosely, so the names an event carries are a hint:
// - a `status` lists branches that *contain* the commit, whether it is their head or not, and
//   at most 10 of them (the status webhook's description);
// - a check suite's `head_branch` is one branch, which one GitHub does not document (the first
//   one, the one pushed to, or null: tests/emulator/readings.ts, `checkSuiteHeadBranch`).
// A listed branch is believed only with its head; when the list may have left a run branch
// out, one `matching-refs` read of `heads/baton/` answers which run branches are at the commit.
import { refsUnder } from '../../hosts/github/git-refs.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { isRunBranch, runIdOfBranch } from '../../hosts/github/run-id.ts';

/** A branch an event names, with its head when the event says it. */
export interface NamedBranch {
  name: string;
  /** The branch's head; undefined when the event does not say (a suite's head_branch was its head when the suite was made). */
  head?: string;
}

/**
 * The run ids whose run branch has `sha` as its head. `complete`: the event lists every branch
 * that could be one (a status with fewer than 10 branches); otherwise a run branch among the
 * names is believed and, when there is none, GitHub is asked.
 */
export async function runIdsAt(gh: RepoContext, sha: string, named: NamedBranch[], complete: boolean): Promise<string[]> {
  const hits = named.filter((b) => isRunBranch(b.name) && (b.head === undefined || b.head === sha)).map((b) => runIdOfBranch(b.name)!);
  if (hits.length > 0 || complete) return [...new Set(hits)];
  const refs = await refsUnder(gh, 'heads/baton/');
  return [...new Set(refs.filter((r) => r.sha === sha && isRunBranch(r.ref)).map((r) => runIdOfBranch(r.ref)!))];
}

/** A status webhook names at most this many branches: with this many, others may be left out. */
export const STATUS_BRANCHES_LISTED = 10;
