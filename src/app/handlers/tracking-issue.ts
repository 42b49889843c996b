// The issue a run with no issue of its own lives on: a schedule's (one per workflow) and the
// CI doctor's (one per failing workflow). baton opens it and finds it again by a marker at the
// end of its body — counted only in an issue baton's bot opened: anyone can open an issue that
// carries the same words, and nobody but the bot (and people who may edit any issue: triage and
// up) can edit the bot's.
import type { RepoContext } from '../../hosts/github/client.ts';
import { fitComment } from '../../hosts/github/limits.ts';
import { inert, markerComment } from '../../record/inert.ts';
import type { Thread } from './start.ts';

/** A marker counts only as the last line of an issue body, where openTrackingIssue puts it. */
const MARKER = /\n<!-- (baton:(?:schedule|doctor) [^\s<>]+) -->\s*$/;

interface IssueListed {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  user: { login: string } | null;
  pull_request?: unknown;
}

const threadOf = (i: IssueListed): Thread => ({ number: i.number, isPull: false, title: i.title, body: i.body ?? null, url: i.html_url });

/**
 * baton's open issue carrying `marker` (the first opened, when there are several), or undefined.
 * One paginated read of the open issues baton's bot opened (GitHub's `creator` filter takes a
 * bot's `name[bot]` login); the author is checked again here, the filter is only a narrowing.
 */
export async function findTrackingIssue(gh: RepoContext, marker: string): Promise<Thread | undefined> {
  const listed = (await gh.octokit.paginate('GET /repos/{owner}/{repo}/issues', { owner: gh.owner, repo: gh.repo, state: 'open', creator: gh.botLogin, sort: 'created', direction: 'asc', per_page: 100 })) as IssueListed[];
  const own = listed.filter((i) => !i.pull_request && i.user?.login.toLowerCase() === gh.botLogin.toLowerCase() && MARKER.exec(i.body ?? '')?.[1] === marker);
  return own.length ? threadOf(own[0]!) : undefined;
}

/** The body of a tracking issue: `text` made inert (it may quote names from elsewhere), the marker last. */
export function trackingBody(text: string, marker: string): string {
  return fitComment(inert(text), `\n\n${markerComment(marker)}`);
}

export async function openTrackingIssue(gh: RepoContext, marker: string, title: string, text: string): Promise<Thread> {
  const res = await gh.octokit.request('POST /repos/{owner}/{repo}/issues', { owner: gh.owner, repo: gh.repo, title: inert(title).slice(0, 256), body: trackingBody(text, marker) });
  return threadOf(res.data as IssueListed);
}

/** Rewrites a tracking issue's body (the failure a new doctor run is about); the marker stays. */
export async function rewriteTrackingIssue(gh: RepoContext, thread: Thread, marker: string, text: string): Promise<Thread> {
  const body = trackingBody(text, marker);
  if (body === thread.body) return thread;
  await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: gh.owner, repo: gh.repo, issue_number: thread.number, body });
  return { ...thread, body };
}
