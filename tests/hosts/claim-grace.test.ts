// A process holding an old view after its run's claims were deleted (prune.ts) must reload,
// not claim: with claim g+1 deleted, its create would succeed and it would act on the old view.
import { describe, expect, it } from 'vitest';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { EventClaim, LeaseExpired, StaleView, leaseRef } from '../../src/hosts/github/lease.ts';
import { emptyState } from '../../src/engine/state.ts';

/** Claims as GitHub keeps refs: create-if-absent; the pruner deleted every claim of fix-7-1 up to 9. */
function refsAfterPruning(): { gh: RepoContext; created: string[] } {
  const created: string[] = [];
  const existing = new Set<string>([leaseRef('fix-7-1', 10)]);
  const gh = {
    owner: 'acme',
    repo: 'widgets',
    octokit: {
      request: async (route: string, params: { ref: string }) => {
        const ref = route.startsWith('GET') ? `refs/${params.ref}` : params.ref;
        if (route.startsWith('GET')) {
          if (existing.has(ref)) return { status: 200, data: {} };
          throw Object.assign(new Error('Not Found'), { status: 404 });
        }
        if (existing.has(ref)) throw Object.assign(new Error('Reference already exists'), { status: 422, response: { data: { message: 'Reference already exists' } } });
        existing.add(ref);
        created.push(ref);
        return { status: 201, data: {} };
      },
    },
  } as unknown as RepoContext;
  return { gh, created };
}

const state = { ...emptyState(), runId: 'fix-7-1', runBranch: 'baton/fix-7-1', head: 'a'.repeat(40) };
const TTL = 300_000;
const GRACE = 900_000;

describe('claims and the grace period', () => {
  it('a view older than the grace period is reloaded (StaleView) instead of claiming a generation whose claim was deleted', async () => {
    const r = refsAfterPruning();
    let now = 0;
    const memory = { gen: 4, confirmedAt: 0 };
    now += GRACE + 1;
    const claim = new EventClaim(r.gh, memory, () => now, TTL, undefined, GRACE);
    await expect(claim.ensure(state)).rejects.toBeInstanceOf(StaleView);
    await expect(claim.ensureCurrent('fix-7-1')).rejects.toBeInstanceOf(StaleView);
    expect(r.created).toEqual([]);
    expect(memory.gen).toBe(4);
  });

  it('a view within the grace period claims as before, and a claim won confirms the view', async () => {
    const r = refsAfterPruning();
    let now = 0;
    const memory = { gen: 10, confirmedAt: 0 };
    now += GRACE - 1;
    const claim = new EventClaim(r.gh, memory, () => now, TTL, undefined, GRACE);
    await claim.ensure(state);
    expect(r.created).toEqual([leaseRef('fix-7-1', 11)]);
    expect(memory).toEqual({ gen: 11, confirmedAt: GRACE - 1 });
  });

  it('a holder never renews a claim older than the grace period: it stops (LeaseExpired)', async () => {
    const r = refsAfterPruning();
    let now = 0;
    const memory = { gen: 10, confirmedAt: 0 };
    const claim = new EventClaim(r.gh, memory, () => now, TTL, undefined, GRACE);
    await claim.ensure(state);
    now += GRACE;
    await expect(claim.ensure(state)).rejects.toBeInstanceOf(LeaseExpired);
    expect(r.created).toEqual([leaseRef('fix-7-1', 11)]);
  });
});
