// A review step's review as a real pull request review with inline comments: on the run's
// own PR always a COMMENT, on a fork's pull request always a COMMENT (eventFor), on someone
// else's PR with the event the engine chose (APPROVE, REQUEST_CHANGES or COMMENT). The review carries a marker as its last line, which is how a
// redelivered command finds it instead of posting it twice; the engine is told what GitHub
// answered (review.posted with the review's id and link, or review.failed with GitHub's reason).
import type { PostReview, ReviewComment, ReviewEvent, RunEvent } from '../../engine/index.ts';
import { inert, markerComment } from '../../record/inert.ts';
import { quietMentions } from '../../engine/mentions.ts';
import { ACTIONS_PR_ADVICE, isActionsPrRefusal } from './actions-settings.ts';
import { messageOf, refusedForGood, statusOf, type RepoContext } from './client.ts';
import { fitComment } from './limits.ts';
import { fenceFor, suggestionBlock } from './suggestion.ts';

interface InlineComment {
  path: string;
  line: number;
  side: 'RIGHT';
  start_line?: number;
  start_side?: 'RIGHT';
  body: string;
}

const EVENT_OF_STATE: Record<string, ReviewEvent> = { APPROVED: 'APPROVE', CHANGES_REQUESTED: 'REQUEST_CHANGES', COMMENTED: 'COMMENT' };

/** GitHub's whole answer: the reviews API puts the reason in `errors` (plain strings), its message says only "Unprocessable Entity". */
export function reasonOf(err: unknown): string {
  const errors = (err as { response?: { data?: { errors?: unknown } } })?.response?.data?.errors;
  const details = Array.isArray(errors) ? errors.map((e) => (typeof e === 'string' ? e : ((e as { message?: string })?.message ?? JSON.stringify(e)))) : [];
  return [messageOf(err), ...details].join(': ');
}

/**
 * GitHub refuses a whole review when one inline comment is not on a line of the diff
 * ("Pull request review thread line must be part of the diff", "Line could not be resolved"):
 * those reviews are posted again with every comment in the body.
 */
function outsideTheDiff(err: unknown): boolean {
  return statusOf(err) === 422 && /part of the diff|could not be resolved|same hunk|diff hunk/i.test(reasonOf(err));
}

/**
 * GitHub's refusal of a `commit_id` that is no longer one of the pull request's commits (a
 * force push dropped it): 422 "The commitOID is not part of the pull request"
 * (reviewdog/reviewdog#434).
 */
function commitGone(err: unknown): boolean {
  return statusOf(err) === 422 && /not part of the pull request/i.test(reasonOf(err));
}

/** An inline comment for one the reviewer placed on a line; its suggestion as a suggested change. */
function inline(c: ReviewComment): InlineComment {
  const range = c.start_line !== undefined && c.start_line < c.line! ? { start_line: c.start_line, start_side: 'RIGHT' as const } : {};
  let body = inert(quietMentions(c.body));
  if (c.suggestion !== undefined) {
    // A range that ends before it starts names no lines the suggestion could replace.
    const s = c.start_line !== undefined && c.start_line > c.line! ? { withheld: `its lines ${c.start_line}–${c.line} are not a range` } : suggestionBlock(c.suggestion);
    body = 'block' in s ? `${body}\n\n${s.block}` : `${body}\n\n_(suggested change left out: ${s.withheld})_`;
  }
  return { path: c.path!, line: c.line!, side: 'RIGHT', ...range, body };
}

/** Comments that are not on a line, as a list in the review's body (a suggestion as plain text: GitHub cannot apply it there). */
function listed(comments: ReviewComment[]): string {
  return comments
    .map((c) => {
      const where = c.path ? `\`${c.path}${c.line ? `:${c.start_line && c.start_line < c.line ? `${c.start_line}-` : ''}${c.line}` : ''}\`: ` : '';
      const item = `- ${where}${inert(quietMentions(c.body))}`;
      if (c.suggestion === undefined) return item;
      const text = inert(c.suggestion.replace(/\r\n?/g, '\n').replace(/\n$/, ''));
      const fence = fenceFor(text);
      return `${item}\n\n  Suggested:\n\n${[`${fence}text`, ...text.split('\n'), fence].map((l) => `  ${l}`).join('\n')}`;
    })
    .join('\n');
}

/**
 * What the review looked at: the commit and how many files the pull request changes (one read),
 * and whether its head is a fork's (another repository's, or a fork since deleted).
 */
async function looked(gh: RepoContext, cmd: PostReview): Promise<{ line: string; fork: boolean }> {
  const pull = (await gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: gh.owner, repo: gh.repo, pull_number: cmd.prNumber })).data;
  const fork = (pull.head.repo?.full_name ?? '').toLowerCase() !== `${gh.owner}/${gh.repo}`.toLowerCase();
  const files = `${pull.changed_files} file${pull.changed_files === 1 ? '' : 's'} changed`;
  if (pull.head.sha === cmd.commit) return { line: `Reviewed commit ${cmd.commit} (${files}).`, fork };
  // The PR moved on while the reviewer worked: say which commit the review is about.
  return { line: `Reviewed commit ${cmd.commit}; the pull request's head is now ${pull.head.sha} (${files}).`, fork };
}

/**
 * The one door of baton's review verdicts: a review of a fork's pull request is a COMMENT,
 * whoever started the run and whatever the manifest's `verdicts` or the engine asked. An App's
 * approval counts toward the reviews branch protection requires, and a reviewer that read a
 * stranger's code and text can be steered to any verdict.
 */
function eventFor(cmd: PostReview, fork: boolean): ReviewEvent {
  return cmd.fork || fork ? 'COMMENT' : cmd.event;
}

/** baton's own review posted by the post-review command `key` on pull request `prNumber`, if GitHub has it. */
export async function findOwnReview(gh: RepoContext, prNumber: number, key: string) {
  const tail = markerComment(`baton:review ${key}`);
  const reviews = await gh.octokit.paginate('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { owner: gh.owner, repo: gh.repo, pull_number: prNumber, per_page: 100 });
  // Only baton's own review, ending in the marker, says it was posted: anyone can quote a marker.
  return reviews.find((r) => r.user?.login.toLowerCase() === gh.botLogin.toLowerCase() && (r.body ?? '').trimEnd().endsWith(tail));
}

export async function postReview(gh: RepoContext, cmd: PostReview, known: Set<string>, lookFirst: boolean, at: number): Promise<RunEvent[]> {
  const o = { owner: gh.owner, repo: gh.repo, pull_number: cmd.prNumber };
  const marker = `baton:review ${cmd.key}`;
  const tail = markerComment(marker);
  const posted = (review: { id: number | bigint; html_url: string; state?: string }): RunEvent[] =>
    cmd.confirm
      ? [{ type: 'review.posted', key: `${cmd.key}/posted`, at, step: cmd.step, attempt: cmd.attempt, reviewId: Number(review.id), url: review.html_url, event: EVENT_OF_STATE[review.state ?? ''] ?? cmd.event }]
      : [];
  if (known.has(marker) && !cmd.confirm) return [];
  if (lookFirst || known.has(marker)) {
    const ours = await findOwnReview(gh, cmd.prNumber, cmd.key);
    if (ours) {
      known.add(marker);
      return posted(ours);
    }
  }
  const seen = cmd.confirm ? await looked(gh, cmd) : null;
  const event = eventFor(cmd, seen?.fork ?? false);
  const verdict = cmd.approved ? '✅ **Approved** by the reviewer agent.' : '🔁 **Changes requested** by the reviewer agent.';
  // Never an empty body: GitHub requires one for COMMENT and REQUEST_CHANGES, and an approval
  // with no comments still says what was looked at.
  const held = event !== cmd.event ? "(Posted as a comment: baton never approves or requests changes on a fork's pull request.)" : '';
  const text = [verdict, seen?.line ?? '', held, inert(quietMentions(cmd.body))].filter((l) => l.trim() !== '').join('\n\n');
  const onLines = cmd.comments.filter((c) => c.path && c.line);
  const loose = cmd.comments.filter((c) => !(c.path && c.line));
  // The agent's text may be of any length and say anything: inert, cut to GitHub's limit, the
  // marker always kept as the last line.
  const body = (extra: ReviewComment[], note = '') => fitComment([text, note, extra.length ? listed(extra) : ''].filter((l) => l !== '').join('\n\n'), `\n${tail}`);
  // On the commit the reviewer read: without commit_id GitHub puts the review on the pull
  // request's latest commit and resolves the lines there (REST "Create a review for a pull
  // request"), so a PR that moved on meanwhile would get them on other lines. GitHub marks
  // comments outdated where the code changed since.
  const post = (comments: ReviewComment[], bodyOf: ReviewComment[], onCommit: boolean) =>
    gh.octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
      ...o,
      event,
      body: body(bodyOf, onCommit || !comments.length ? '' : `The reviewed commit ${cmd.commit} is not one of the pull request's commits, so GitHub placed these comments on the lines of its latest commit.`),
      comments: comments.map(inline),
      ...(onCommit && cmd.commit ? { commit_id: cmd.commit } : {}),
    });
  // Each try as it is refused: on the commit; on the head when the commit is not the PR's;
  // every comment in the body when a line is outside the diff.
  const tries = async (onCommit: boolean): Promise<{ id: number | bigint; html_url: string; state?: string }> => {
    try {
      return (await post(onLines, loose, onCommit)).data;
    } catch (err) {
      if (onCommit && cmd.commit && commitGone(err)) return tries(false);
      if (!onLines.length || !outsideTheDiff(err)) throw err;
      return (await post([], cmd.comments, onCommit)).data;
    }
  };
  try {
    const review = await tries(true);
    known.add(marker);
    return posted(review);
  } catch (err) {
    // Rate limits, expired credentials and GitHub's own failures are waited out and retried.
    if (!refusedForGood(err)) throw err;
    const reason = reasonOf(err);
    const advice = isActionsPrRefusal(statusOf(err), messageOf(err)) ? ` — ${ACTIONS_PR_ADVICE}` : '';
    return [{ type: 'review.failed', key: `${cmd.key}/failed`, at, step: cmd.step, attempt: cmd.attempt, error: `GitHub refused the ${event} review (${statusOf(err)}): ${reason}${advice}` }];
  }
}
