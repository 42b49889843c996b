// GitHub's workflow-file rule, as it meets a run that lasts. A token without the `workflows`
// permission (the App asks for none; a GITHUB_TOKEN can never have it) may not make a ref point
// at a commit whose `.github/workflows/` differs from the default branch's *current* tip — not
// documented, observed (vtmocanu/uzi#456, actions/checkout#1421), custom ref namespaces
// included — and, by one reading, may not move a ref there either (kaeawc/android-build#428); by
// the other, a move is compared with the ref's old commit. So once someone changes main's
// workflow files, every commit a run made before carries the old ones and is refused wherever
// GitHub compares with main. What baton does about it:
// - claims point at a commit made from the default branch's tip (lease.ts, the claim anchor);
// - a run branch that GitHub refuses to move catches up: the default branch is merged into it
//   (the merges API, as the pull request's "Update branch" button does), then the run's own
//   commits, so the branch carries main's workflow files and the PR's diff stays the run's own.
// Under the reading where a move is compared with the old commit the plain move is accepted and
// nothing of this happens. Where GitHub still refuses (the run itself changes workflow files; it
// conflicts with main), the caller records a refusal saying so: a run never waits on it for ever.
import { messageOf, statusOf, type RepoContext } from './client.ts';
import { mergeInto, readRef } from './git-refs.ts';

/**
 * Whether an error may be GitHub's refusal of a workflow-file change at a ref or a merge: 403
 * "Resource not accessible by integration" or "refusing to allow … workflow … without `workflows`
 * permission" (anthropics/claude-code-action#29, KeisukeYamashita/auto-pull-request-merge#481), or
 * a 422 at the ref — naming the rule, or "Reference update failed", which is also what GitHub
 * answers now and then with valid data (github/rest-api-description#4887). What follows such an
 * answer (a new claim anchor; the run branch merged up to date) is harmless when it was not the rule.
 */
export function workflowRuleRefusal(err: unknown): boolean {
  const status = statusOf(err);
  const message = messageOf(err);
  if (status === 403) return /not accessible by integration|workflow/i.test(message) && !/rate limit/i.test(message);
  return status === 422 && /workflow|update failed/i.test(message);
}

/** The default branch's tip: its commit and that commit's tree (one request). */
export async function defaultBranchTip(gh: RepoContext): Promise<{ sha: string; tree: string }> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}', { owner: gh.owner, repo: gh.repo, ref: `heads/${gh.defaultBranch}` });
  return { sha: res.data.sha, tree: res.data.commit.tree.sha };
}

/** GitHub refused to bring a run branch up to date with the default branch: why, for the thread. */
export class RunBranchRefused extends Error {}

/**
 * Brings `branch` (under baton/) up to date with the default branch, then merges `target` (the
 * run's head, or a step's commit) into it: the new tip, which carries the default branch's
 * workflow files and everything of `target`. Two merges at most; one when the branch is at
 * `target` already. Throws RunBranchRefused when GitHub will not have it either way.
 */
export async function catchUpWithDefaultBranch(gh: RepoContext, branch: string, target: string, why: unknown): Promise<string> {
  const merge = async (head: string, message: string): Promise<string | null> => {
    try {
      const res = await mergeInto(gh, branch, head, message);
      return res.status === 201 && res.data ? res.data.sha : null;
    } catch (err) {
      if (statusOf(err) === 409) {
        throw new RunBranchRefused(`${branch} conflicts with ${gh.defaultBranch}, whose workflow files changed since the run started: GitHub refuses ${branch} as it is to a token without the \`workflows\` permission (${statusOf(why)} ${messageOf(why)}), and merging ${gh.defaultBranch} into it conflicts; merge ${gh.defaultBranch} into ${branch} yourself, then \`/baton retry\``);
      }
      if (workflowRuleRefusal(err)) {
        throw new RunBranchRefused(`GitHub refuses to move ${branch} onto a commit whose .github/workflows differ from ${gh.defaultBranch}'s to a token without the \`workflows\` permission (${statusOf(err)} ${messageOf(err)}), even after merging ${gh.defaultBranch} into it: the run's own commits change workflow files`);
      }
      throw err;
    }
  };
  const tip = await defaultBranchTip(gh);
  const first = await merge(tip.sha, `Merge ${gh.defaultBranch} into ${branch}\n\n${gh.defaultBranch} changed its workflow files while the run was open; GitHub refuses a branch that lags them to a token without the \`workflows\` permission.`);
  const merged = await merge(target, `Merge ${target.slice(0, 7)} into ${branch}`);
  if (merged !== null) return merged;
  if (first !== null) return first;
  // Neither merge was needed (someone brought the branch up to date meanwhile): where it is now.
  const now = await readRef(gh, `heads/${branch}`);
  if (now === null) throw new Error(`${branch} is gone: it was deleted while baton brought it up to date`);
  return now;
}
