// Listing and deleting the refs baton leaves: the claims under `refs/baton/leases/` (lease.ts)
// and the branches of finished runs. A repository with tens of thousands of refs has its ref
// listings time out on GitHub, and its branch list past GitHub's guidance of 5,000: what baton
// created it deletes again once nothing needs it (docs/operations.md, "Refs baton keeps").
import { parseRunId } from './run-id.ts';
import { LEASE_PREFIX } from './lease.ts';
import { messageOf, statusOf, type RepoContext } from './client.ts';

export interface ClaimRef {
  /** The full ref, `refs/baton/leases/<run id>/<generation>`. */
  ref: string;
  runId: string;
  gen: number;
}

/** Every full ref under `prefix` (`heads/baton/`, `baton/leases/`): one paginated read. */
export async function refsUnder(gh: RepoContext, prefix: string): Promise<string[]> {
  const refs = await gh.octokit.paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { owner: gh.owner, repo: gh.repo, ref: prefix, per_page: 100 });
  return (refs as Array<{ ref: string }>).map((r) => r.ref);
}

/** The claims of a repository; a ref under the prefix that is not one of baton's claims is left out. */
export async function listClaims(gh: RepoContext): Promise<ClaimRef[]> {
  const out: ClaimRef[] = [];
  for (const ref of await refsUnder(gh, LEASE_PREFIX.slice('refs/'.length))) {
    const m = /^([^/]+)\/(\d+)$/.exec(ref.slice(LEASE_PREFIX.length));
    if (m && parseRunId(m[1]!) && Number(m[2]) > 0) out.push({ ref, runId: m[1]!, gen: Number(m[2]) });
  }
  return out;
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
