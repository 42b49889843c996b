// The one way baton creates a ref (claims, run branches, step branches), reading GitHub's answers
// to `POST git/refs` for what they say (renovatebot/renovate#20281, github/rest-api-description#4887):
// - 201: made by this request;
// - 422 "Reference already exists": it was there — someone's, or this process's own when an
//   earlier try of this very create went unanswered (a 5xx or a timeout does not undo a write),
//   which the caller tells by what the ref points at;
// - 422 "Reference update failed", a 5xx, no answer: nothing is settled; sent again, a little
//   later each time (the client's own retries are off for this request, so every try is seen here);
// - anything else (a refusal for good: a ruleset, the workflow-file rule) is thrown.
import { messageOf, statusOf, type RepoContext } from './client.ts';

/** Tries of a create whose answers settle nothing, in all. */
export const CREATE_REF_ATTEMPTS = 4;

export type RefCreated = { created: true } | { created: false; pointsAt: () => Promise<string> ; unanswered: boolean };

/** `pause(n)`: waits before try n + 1 (n = 1, 2, …). */
export async function createRef(gh: RepoContext, ref: string, sha: string, pause: (attempt: number) => Promise<void> = async () => {}): Promise<RefCreated> {
  let unanswered = false;
  let last: unknown;
  for (let attempt = 0; attempt < CREATE_REF_ATTEMPTS; attempt++) {
    if (attempt > 0) await pause(attempt);
    try {
      await gh.octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner: gh.owner, repo: gh.repo, ref, sha, request: { retries: 0 } });
      return { created: true };
    } catch (err) {
      last = err;
      const status = statusOf(err);
      if (status === 422 && /already exists/i.test(messageOf(err))) return { created: false, unanswered, pointsAt: () => refTarget(gh, ref) };
      if (status === 422 && /update failed/i.test(messageOf(err))) continue;
      if (status === undefined || status >= 500) {
        unanswered = true;
        continue;
      }
      throw err;
    }
  }
  throw last;
}

/** The commit a ref points at. */
async function refTarget(gh: RepoContext, ref: string): Promise<string> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: gh.owner, repo: gh.repo, ref: ref.replace(/^refs\//, '') });
  return res.data.object.sha;
}
