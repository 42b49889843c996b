// Refs through the Git Data API, one function per operation for every caller — and the one door
// every ref write baton makes passes (tests/security/round3-ref-door.test.ts fails when a write
// route appears anywhere else in src/). Deny by default (`refusal`): baton writes its own
// namespaces, `refs/heads/baton/…` (run and step branches) and `refs/baton/…` (claims, ticks),
// and a pull request's head only when a `push-to-head` step names it — never the repository's
// default branch, never a branch the repository protects, whatever the trigger. An App may be a
// bypass actor of branch protection, so GitHub's own refusal is not relied on.
//
// Creating one reads GitHub's answers to `POST git/refs` for what they say (renovatebot/renovate#20281, github/rest-api-description#4887):
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
  await admit(gh, ref);
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
  await admit(gh, ref);
  try {
    await gh.octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { owner: gh.owner, repo: gh.repo, ref: ref.replace(/^refs\//, '') });
    return true;
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || (status === 422 && /does not exist/i.test(messageOf(err)))) return false;
    throw err;
  }
}

/**
 * A pull request's head branch that a `push-to-head` step may move (pull-request.ts): the door
 * admits this one branch of this repository, if it is neither the default branch nor protected.
 */
export interface PullHeadGrant {
  branch: string;
  pull: number;
}

/** The door refused a ref write: what and why, for the thread. */
export class RefRefused extends Error {}

/** `heads/x` or `refs/heads/x` → `refs/heads/x`. */
const fullRef = (ref: string): string => (ref.startsWith('refs/') ? ref : `refs/${ref}`);

/** Baton's own namespaces: run and step branches, and refs no branch or tag holds (claims, ticks). */
const OWN = /^refs\/(heads\/baton|baton)\/[^/]/;

/**
 * Whether a branch is protected, as `GET branches/{branch}` says (`protected`: branch protection
 * or a ruleset, docs "REST API endpoints for branches"); `missing` when GitHub knows no such branch.
 */
async function isProtected(gh: RepoContext, branch: string): Promise<boolean | 'missing'> {
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/branches/{branch}', { owner: gh.owner, repo: gh.repo, branch });
    return res.data.protected === true;
  } catch (err) {
    if (statusOf(err) === 404) return 'missing';
    throw err;
  }
}

/**
 * Why baton may not write `ref`, or undefined when it may. Deny by default: only baton's own
 * namespaces, or the one pull request head a `push-to-head` grant names; never the default branch
 * (whatever namespace it is in), never a protected branch outside baton's namespaces.
 */
export async function refusal(gh: RepoContext, ref: string, grant?: PullHeadGrant): Promise<string | undefined> {
  const full = fullRef(ref);
  const branch = full.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : undefined;
  if (branch !== undefined && branch === gh.defaultBranch) return `\`${branch}\` is the repository's default branch, which baton never writes`;
  if (OWN.test(full) && !full.includes('..')) return undefined;
  if (branch === undefined || grant === undefined || grant.branch !== branch) return `\`${full}\` is outside baton's own refs (\`refs/heads/baton/…\`, \`refs/baton/…\`), which are all baton writes`;
  const guarded = await isProtected(gh, branch);
  // Deny by default: a branch whose protection cannot be read is not written.
  if (guarded === 'missing') return `\`${branch}\` is no branch GitHub knows here, so whether it is protected cannot be told`;
  if (guarded) return `\`${branch}\` is a branch the repository protects, which baton never writes (a GitHub App may bypass the protection)`;
  return undefined;
}

/** Throws RefRefused unless baton may write `ref` (`refusal`). */
async function admit(gh: RepoContext, ref: string, grant?: PullHeadGrant): Promise<void> {
  const why = await refusal(gh, ref, grant);
  if (why !== undefined) throw new RefRefused(`baton refuses to write ${fullRef(ref)}: ${why}`);
}

/**
 * Moves a ref (`refs/…` or `heads/…`) to `sha`: `PATCH git/refs`, a fast-forward unless `force`.
 * A pull request's head only with the grant of its `push-to-head` step.
 */
export async function updateRef(gh: RepoContext, ref: string, sha: string, force: boolean, grant?: PullHeadGrant): Promise<void> {
  await admit(gh, ref, grant);
  await gh.octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { owner: gh.owner, repo: gh.repo, ref: fullRef(ref).slice('refs/'.length), sha, force });
}

/** Merges `head` (a sha) into branch `base` with the merges API (201 with the merge commit, 204 when `base` has it already). */
export async function mergeInto(gh: RepoContext, base: string, head: string, message: string) {
  await admit(gh, `refs/heads/${base}`);
  return gh.octokit.request('POST /repos/{owner}/{repo}/merges', { owner: gh.owner, repo: gh.repo, base, head, commit_message: message });
}
