// What a run's status comment says while its writes wait for GitHub's write budget
// (write-budget.ts): one line under the record's marker, with an estimate. It is one write,
// spent from the reserve, once per event that waits; the run's next record write replaces the
// whole body and so takes the line away (the body in memory is the noticed one, which differs).
import type { RepoContext } from '../hosts/github/client.ts';
import type { RunMemory } from '../hosts/github/memory.ts';

export const WAITING_NOTICE = "⏳ Waiting for GitHub's write budget";

/** "about 3 minutes", "about 1 hour". */
export function roughly(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hour${hours === 1 ? '' : 's'}`;
}

/** The record's body with the notice as its second line (the marker stays first, the state block last). */
export function withNotice(body: string, estimateMs: number): string {
  const [first, ...rest] = body.split('\n');
  const line = `> ${WAITING_NOTICE}: GitHub limits how many writes an App may make per installation, and this run's next one goes out in ${roughly(estimateMs)}. Nothing is lost meanwhile.`;
  return [first, line, ...rest].join('\n');
}

/**
 * Edits the run's status comment to say it waits. Only over the body this process last wrote
 * or read: a comment changed since (another App process wrote a newer record) is left alone,
 * so the notice never puts an older state back.
 */
export async function deferralNotice(gh: RepoContext, memory: RunMemory, estimateMs: number): Promise<void> {
  const commentId = memory.commentId;
  if (commentId === null || !memory.body || memory.body.includes(WAITING_NOTICE)) return;
  const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: gh.owner, repo: gh.repo, comment_id: commentId });
  if (data.body !== memory.body) return;
  const body = withNotice(memory.body, estimateMs);
  await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: gh.owner, repo: gh.repo, comment_id: commentId, body });
  if (memory.body === data.body) memory.body = body;
}
