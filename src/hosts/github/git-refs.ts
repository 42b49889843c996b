// Refs through the Git Data API, one function per operation for every caller: reading one,
// listing a prefix, deleting one, and creating one (claims, run branches, step branches), which
// reads GitHub's answers to `POST git/refs` for what they say (renovatebot/renovate#20281, github/rest-api-description#4887):
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

export type RefCreated = { created: true } | { created: false; pointsAt: () => Promise<string | null>; unanswered: boolean };

/**
 * Told each time a request actually goes out to GitHub, after any wait in the client's throttle
 * queue: the `request.onSend` option, which the App's Octokit honours (app/octokit.ts). A client
 * that does not never calls it.
 */
export type OnSend = () => void;

/** `pause(n)`: waits before try n + 1 (n = 1, 2, …). `onSend`: told as each try goes out. */
export async function createRef(gh: RepoContext, ref: string, sha: string, pause: (attempt: number) => Promise<void> = async () => {}, onSend?: OnSend): Promise<RefCreated> {
  let unanswered = false;
  let last: unknown;
  for (let attempt = 0; attempt < CREATE_REF_ATTEMPTS; attempt++) {
    if (attempt > 0) await pause(attempt);
    try {
      await gh.octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner: gh.owner, repo: gh.repo, ref, sha, request: { retries: 0, ...(onSend ? { onSend } : {}) } });
      return { created: true };
    } catch (err) {
      last = err;
      const status = statusOf(err);
      if (status === 422 && /already exists/i.test(messageOf(err))) return { created: false, unanswered, pointsAt: () => readRef(gh, ref) };
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

/** The commit `ref` (`refs/…` or `heads/…`) points at, or null when there is no such ref. */
export async function readRef(gh: RepoContext, ref: string): Promise<string | null> {
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: gh.owner, repo: gh.repo, ref: ref.replace(/^refs\//, '') });
    return res.data.object.sha;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/** Every ref under `prefix` (`heads/baton/`, `baton/leases/`), full name and commit: one paginated read. */
export async function refsUnder(gh: RepoContext, prefix: string): Promise<Array<{ ref: string; sha: string }>> {
  const refs = await gh.octokit.paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { owner: gh.owner, repo: gh.repo, ref: prefix, per_page: 100 });
  return (refs as Array<{ ref: string; object: { sha: string } }>).map((r) => ({ ref: r.ref, sha: r.object.sha }));
}

/**
 * Deletes a ref (`refs/…` or `heads/…`); false when it was gone already (deleted by another process,
 * or by GitHub's "automatically delete head branches" after a merge).
 */
export async function deleteRef(gh: RepoContext, ref: string): Promise<boolean> {
  try {
    await gh.octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { owner: gh.owner, repo: gh.repo, ref: ref.replace(/^refs\//, '') });
    return true;
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || (status === 422 && /does not exist/i.test(messageOf(err)))) return false;
    throw err;
  }
}
