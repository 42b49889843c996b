// The claims baton leaves under `refs/baton/leases/` (lease.ts), as the sweep lists them to
// delete them (prune.ts; the branches of finished runs: run-branches.ts). A repository with tens of thousands of refs has its ref
// listings time out on GitHub, and its branch list past GitHub's guidance of 5,000: what baton
// created it deletes again once nothing needs it (docs/operations.md, "Refs baton keeps").
import { parseRunId } from './run-id.ts';
import { LEASE_PREFIX } from './lease.ts';
import type { RepoContext } from './client.ts';
import { refsUnder } from './git-refs.ts';

export interface ClaimRef {
  /** The full ref, `refs/baton/leases/<run id>/<generation>`. */
  ref: string;
  runId: string;
  gen: number;
}

/** The claims of a repository; a ref under the prefix that is not one of baton's claims is left out. */
export async function listClaims(gh: RepoContext): Promise<ClaimRef[]> {
  const out: ClaimRef[] = [];
  for (const { ref } of await refsUnder(gh, LEASE_PREFIX.slice('refs/'.length))) {
    const m = /^([^/]+)\/(\d+)$/.exec(ref.slice(LEASE_PREFIX.length));
    if (m && parseRunId(m[1]!) && Number(m[2]) > 0) out.push({ ref, runId: m[1]!, gen: Number(m[2]) });
  }
  return out;
}
