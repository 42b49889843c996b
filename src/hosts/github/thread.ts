// The thread a run lives in: reading its comments (to find records and baton's own
// markers), and writing the status comment — only when its body changed (Renovate's
// habit), so a redelivered event costs no edit.
import type { RunState } from '../../engine/index.ts';
import { findRecords, type FoundRecord, type IgnoredRecord, type ThreadComment } from '../../record/find.ts';
import { inert, markerComment } from '../../record/inert.ts';
import type { RepoContext } from './client.ts';
import { fitComment } from './limits.ts';

export interface ThreadRead {
  comments: ThreadComment[];
  records: FoundRecord[];
  ignored: IgnoredRecord[];
  /** `<!-- baton:… -->` markers in baton's own comments (questions and replies already posted). */
  markers: Set<string>;
  /**
   * GitHub's time when the thread was read (ms): the `Date` header of its last page, so after
   * every comment's `updated_at` on GitHub's own clock (the claims' pruning, lease.ts). Absent
   * when GitHub's answer carried none.
   */
  readAt?: number;
}

/** A marker counts only as the last line of one of baton's own comments, where postOnce puts it. */
const MARKER = /\n<!-- (baton:(?:questions|reply|review|stranger) [^\s<>]+) -->\s*$/;

export async function readThread(gh: RepoContext, number: number): Promise<ThreadRead> {
  let date: string | undefined;
  const raw = await gh.octokit.paginate(
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    { owner: gh.owner, repo: gh.repo, issue_number: number, per_page: 100 },
    (response) => {
      date = response.headers.date;
      return response.data;
    },
  );
  const comments = raw.map(threadCommentOf);
  const { records, ignored } = findRecords(comments, gh.botLogin, gh.stateSecret);
  const readAt = date === undefined ? NaN : Date.parse(date);
  return { comments, records, ignored, markers: markersOf(comments, gh.botLogin), ...(Number.isFinite(readAt) ? { readAt } : {}) };
}

/** An issue comment as GitHub lists it (a thread's, or the repository's) → what the record reader takes. */
export function threadCommentOf(c: { id: number; body?: string; user: { login: string } | null; html_url: string; created_at: string; updated_at: string }): ThreadComment {
  return { id: Number(c.id), body: c.body ?? '', author: c.user?.login ?? '', url: c.html_url, createdAt: Date.parse(c.created_at), updatedAt: Date.parse(c.updated_at) };
}

/** The markers of baton's own comments: each counts only as the last line of a comment of its bot. */
export function markersOf(comments: readonly ThreadComment[], botLogin: string): Set<string> {
  const markers = new Set<string>();
  for (const c of comments) {
    const m = markerOf(c, botLogin);
    if (m) markers.add(m);
  }
  return markers;
}

/** The marker of one comment: only one of baton's own comments carries one. */
export function markerOf(comment: ThreadComment, botLogin: string): string | undefined {
  if (comment.author.toLowerCase() !== botLogin.toLowerCase()) return undefined;
  return MARKER.exec(comment.body)?.[1];
}

/** Creates or edits the status comment; returns its id. No request when the body is unchanged. */
export async function writeRecord(gh: RepoContext, state: RunState, commentId: number | null, previous: string, body: string): Promise<number> {
  const thread = state.thread;
  if (!thread) throw new Error(`run ${state.runId} has no thread to keep its record in`);
  if (commentId !== null) {
    if (body !== previous) {
      await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: gh.owner, repo: gh.repo, comment_id: commentId, body });
    }
    return commentId;
  }
  const res = await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner: gh.owner,
    repo: gh.repo,
    issue_number: thread.number,
    body,
  });
  return Number(res.data.id);
}

/**
 * Posts a comment carrying a marker, unless a comment with that marker is known to exist. The
 * text may quote people and agents: it is made inert, so that it can never carry a marker or a
 * state block of its own into a comment written by baton's bot. Text beyond GitHub's limit is
 * cut, the marker kept.
 */
export async function postOnce(gh: RepoContext, number: number, marker: string, text: string, known: Set<string>): Promise<void> {
  if (known.has(marker)) return;
  await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner: gh.owner,
    repo: gh.repo,
    issue_number: number,
    body: fitComment(inert(text), `\n${markerComment(marker)}`),
  });
  known.add(marker);
}
