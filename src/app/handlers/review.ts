// `pull_request_review.submitted` on a run's PR: a human's approval or change request.
// Only on the run's own PR (the number in its state, head in this repository): a branch
// named `baton/<run>` on any other PR, or on a fork, is anyone's to push.
import { isAllowed } from '../../engine/index.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { notRunPull, runIdOfBranch } from '../../hosts/github/run-id.ts';
import { reviewComments, reviewState } from '../../hosts/github/translate.ts';
import type { Log, RunService } from '../runs.ts';

export interface Reviewed {
  headRef: string;
  /** `owner/repo` of the PR's head (a fork's PR names the fork); null when the fork is gone. */
  headRepo: string | null;
  prNumber: number;
  reviewId: number;
  state: string;
  body: string | null;
  author: string;
  authorIsBot: boolean;
  key: string;
}

export async function onReview(runs: RunService, gh: RepoContext, ev: Reviewed, log: Log): Promise<void> {
  const runId = runIdOfBranch(ev.headRef);
  const state = reviewState(ev.state);
  if (!runId || !state || ev.authorIsBot || ev.author.toLowerCase() === gh.botLogin.toLowerCase()) return;
  await runs.onRun(
    gh,
    runId,
    async (memory, workflow) => {
      const why = notRunPull(gh, memory.state, ev.prNumber, ev.headRepo);
      if (why) {
        log.warn(`review ${ev.reviewId} on #${ev.prNumber} ignored for run ${runId}: ${why}`);
        return [];
      }
      // Decided before the engine: a review by someone whose permission neither the workflow's
      // roles nor any approve step's admit counts for nothing, so it claims and rewrites nothing.
      const permission = await permissionOf(gh, ev.author);
      const approvers = workflow.steps.flatMap((s) => (s.kind === 'approve' ? [s.roles] : []));
      if (![workflow.on.roles, ...approvers].some((roles) => isAllowed(permission, roles))) {
        log.info(`review ${ev.reviewId} on #${ev.prNumber} by ${ev.author} (\`${permission}\`) does not count for run ${runId}`);
        return [];
      }
      let comments: ReturnType<typeof reviewComments> = [];
      if (state !== 'approved') {
        const all = await gh.octokit.paginate('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { owner: gh.owner, repo: gh.repo, pull_number: ev.prNumber, per_page: 100 });
        comments = reviewComments(all.filter((c) => Number(c.pull_request_review_id) === ev.reviewId));
      }
      return [{ type: 'review.submitted', key: ev.key, at: Date.now(), state, body: ev.body ?? '', comments, actor: ev.author, permission }];
    },
    log,
  );
}
