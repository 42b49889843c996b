/**
 * Marking a draft pull request ready for review, as a person does it. GitHub has no REST route
 * for it: "Update a pull request" takes `title`, `body`, `state`, `base` and
 * `maintainer_can_modify`, not `draft` (https://docs.github.com/en/rest/pulls/pulls#update-a-pull-request;
 * the emulator's PATCH ignores a `draft` field as GitHub does). People press "Ready for review"
 * in the web UI, run `gh pr ready`, or call the GraphQL mutation `markPullRequestReadyForReview`
 * (https://docs.github.com/en/graphql/reference/mutations#markpullrequestreadyforreview), which
 * the emulator, having no GraphQL API, models here. Whichever they use, GitHub sends
 * `pull_request` with action `ready_for_review` ("A draft pull request was marked as ready for
 * review", https://docs.github.com/en/webhooks/webhook-events-and-payloads?actionType=ready_for_review#pull_request),
 * the pull request no longer a draft, the sender whoever marked it.
 */
import type { Emulator } from './emulator.ts';
import { pullJson } from './routes/pulls.ts';
import { now } from './store.ts';

const MAY_MARK = new Set(['admin', 'maintain', 'write']);

/** `login` marks draft pull request `number` of `owner/repo` ready for review. */
export async function markReadyForReview(emulator: Emulator, o: { owner: string; repo: string; number: number; login: string }): Promise<void> {
  const repo = emulator.repo(o.owner, o.repo);
  const issue = repo.issues.get(o.number);
  if (issue?.pull === undefined) throw new Error(`#${o.number} is no pull request of ${repo.fullName}`);
  if (!issue.pull.draft) throw new Error(`pull request #${o.number} is not a draft`);
  if (issue.state !== 'open') throw new Error(`pull request #${o.number} is ${issue.state}`);
  // Its author may, and anyone who may push to the repository (the button is theirs).
  const author = issue.user.toLowerCase() === o.login.toLowerCase();
  if (!author && !MAY_MARK.has(emulator.store.role(repo, o.login))) throw new Error(`${o.login} may not mark pull request #${o.number} ready for review`);
  issue.pull.draft = false;
  issue.updatedAt = now();
  emulator.webhooks.emit('pull_request', { action: 'ready_for_review', number: issue.number, pull_request: await pullJson(emulator, repo, issue) }, { owner: repo.owner, repo: repo.name, sender: o.login });
}
