// The issue a run with no issue of its own lives on: a schedule's (one per workflow) and the
// CI doctor's (one per failing workflow). baton opens it and finds it again by a marker at the
// end of its body — counted only in an issue baton's bot opened: anyone can open an issue that
// carries the same words, and nobody but the bot (and people who may edit any issue: triage and
// up) can edit the bot's.
//
// A tracking issue does not grow for ever: GitHub refuses every comment on an issue past 2,500
// (403 "Commenting is disabled on issues with more than 2500 comments", digitaldrywood/detent#1540;
// the cap cannot be lifted), and a `*/5` schedule's status comments reach it in nine days. baton
// continues on a new tracking issue well before (`trackingIssueFor`): the new one names the old,
// the old says where runs went and is closed. Should GitHub refuse a comment anyway (others filled
// the issue, or comments came between the count and the write), the refusal is said on GitHub
// the same way (`onTrackingIssue`): a new tracking issue says what happened.
import { messageOf, statusOf, type RepoContext } from '../../hosts/github/client.ts';
import { fitComment } from '../../hosts/github/limits.ts';
import { inert, markerComment } from '../../record/inert.ts';
import type { Thread } from './start.ts';

/** A marker counts only as the last line of an issue body, where openTrackingIssue puts it. */
const MARKER = /\n<!-- (baton:(?:schedule|doctor) [^\s<>]+) -->\s*$/;

/** GitHub's cap on the comments of one issue. */
export const ISSUE_COMMENT_CAP = 2500;

/** Comments at which baton continues on a new tracking issue: room under the cap for runs still writing on the old one. */
export const TRACKING_ISSUE_COMMENTS = 2000;

interface IssueListed {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  user: { login: string } | null;
  pull_request?: unknown;
  comments?: number;
}

/** A tracking issue as found: its comments counted when it was listed. */
export interface TrackingThread extends Thread {
  comments: number;
}

/** What a tracking issue is: its marker, and the title and text a new one is opened with. */
export interface Tracking {
  marker: string;
  title: string;
  text: string;
}

const threadOf = (i: IssueListed): TrackingThread => ({ number: i.number, isPull: false, title: i.title, body: i.body ?? null, url: i.html_url, comments: i.comments ?? 0 });

/**
 * baton's open issue carrying `marker` (the first opened, when there are several), or undefined.
 * One paginated read of the open issues baton's bot opened (GitHub's `creator` filter takes a
 * bot's `name[bot]` login); the author is checked again here, the filter is only a narrowing.
 */
export async function findTrackingIssue(gh: RepoContext, marker: string): Promise<TrackingThread | undefined> {
  const listed = (await gh.octokit.paginate('GET /repos/{owner}/{repo}/issues', { owner: gh.owner, repo: gh.repo, state: 'open', creator: gh.botLogin, sort: 'created', direction: 'asc', per_page: 100 })) as IssueListed[];
  const own = listed.filter((i) => !i.pull_request && i.user?.login.toLowerCase() === gh.botLogin.toLowerCase() && MARKER.exec(i.body ?? '')?.[1] === marker);
  return own.length ? threadOf(own[0]!) : undefined;
}

/** The body of a tracking issue: `text` made inert (it may quote names from elsewhere), the marker last. */
export function trackingBody(text: string, marker: string): string {
  return fitComment(inert(text), `\n\n${markerComment(marker)}`);
}

export async function openTrackingIssue(gh: RepoContext, marker: string, title: string, text: string): Promise<TrackingThread> {
  const res = await gh.octokit.request('POST /repos/{owner}/{repo}/issues', { owner: gh.owner, repo: gh.repo, title: inert(title).slice(0, 256), body: trackingBody(text, marker) });
  return threadOf(res.data as IssueListed);
}

/** Rewrites a tracking issue's body (the failure a new doctor run is about); the marker stays. */
export async function rewriteTrackingIssue<T extends Thread>(gh: RepoContext, thread: T, marker: string, text: string): Promise<T> {
  const body = trackingBody(text, marker);
  if (body === thread.body) return thread;
  await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: gh.owner, repo: gh.repo, issue_number: thread.number, body });
  return { ...thread, body };
}

/** Whether a tracking issue has as many comments as baton lets one have (`RepoContext.trackingIssueComments`). */
export function isFull(gh: RepoContext, thread: TrackingThread): boolean {
  return thread.comments >= (gh.trackingIssueComments ?? TRACKING_ISSUE_COMMENTS);
}

/** Why baton moved on from a full tracking issue, as both issues say it. */
export function fullReason(gh: RepoContext, thread: TrackingThread): string {
  return `#${thread.number} has ${thread.comments} comments; GitHub takes at most ${ISSUE_COMMENT_CAP.toLocaleString('en-US')} on one issue, and baton continues on a new one at ${(gh.trackingIssueComments ?? TRACKING_ISSUE_COMMENTS).toLocaleString('en-US')}`;
}

/** GitHub's refusal of a comment on an issue at its cap. */
export function isCommentingDisabled(err: unknown): boolean {
  return statusOf(err) === 403 && /commenting is disabled/i.test(messageOf(err));
}

/** What a new tracking issue says when GitHub refused a comment on the one before. */
export function refusedReason(thread: Thread): string {
  return `GitHub refused baton's comment on #${thread.number} (403: commenting is disabled on issues with more than ${ISSUE_COMMENT_CAP} comments)`;
}

/**
 * Opens the tracking issue that follows `old` and closes `old`. The new one names the old (GitHub
 * shows the link in the old one's timeline too); the old one says where runs went, when GitHub
 * still takes a comment there.
 */
export async function continueTrackingIssue(gh: RepoContext, old: Thread, t: Tracking, why: string): Promise<TrackingThread> {
  const next = await openTrackingIssue(gh, t.marker, t.title, `${t.text}\n\nThis issue continues #${old.number}: ${why}.`);
  try {
    await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: gh.owner, repo: gh.repo, issue_number: old.number, body: `baton continues on #${next.number}: ${why}.` });
  } catch (err) {
    if (!isCommentingDisabled(err)) throw err;
  }
  await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: gh.owner, repo: gh.repo, issue_number: old.number, state: 'closed', state_reason: 'completed' });
  return next;
}

/** The open tracking issue: found, opened when there is none, or continued on a new one when full. */
export async function trackingIssueFor(gh: RepoContext, t: Tracking): Promise<{ thread: TrackingThread; opened: boolean }> {
  const found = await findTrackingIssue(gh, t.marker);
  if (!found) return { thread: await openTrackingIssue(gh, t.marker, t.title, t.text), opened: true };
  if (!isFull(gh, found)) return { thread: found, opened: false };
  return { thread: await continueTrackingIssue(gh, found, t, fullReason(gh, found)), opened: true };
}

/**
 * Does `act` on the open tracking issue (`trackingIssueFor`). When GitHub refuses a comment
 * there, a new tracking issue says so and `act` is done there once more: the refusal is seen on
 * GitHub, and the run it would have lost starts.
 */
export async function onTrackingIssue(gh: RepoContext, t: Tracking, act: (thread: TrackingThread, opened: boolean) => Promise<void>): Promise<void> {
  const { thread, opened } = await trackingIssueFor(gh, t);
  try {
    await act(thread, opened);
  } catch (err) {
    if (!isCommentingDisabled(err)) throw err;
    await act(await continueTrackingIssue(gh, thread, t, refusedReason(thread)), true);
  }
}
