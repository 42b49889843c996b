// The claim one event takes on its run before its first effect (hosts/github/lease.ts): one
// create-if-absent ref per generation; a claim that exists means a stale view; a long event
// renews by claiming the next generation and stops when it loses that to a process taking over.
import { describe, expect, it } from 'vitest';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { EventClaim, LeaseExpired, LeaseTaken, leaseMargin, leaseRef } from '../../src/hosts/github/lease.ts';
import { emptyState } from '../../src/engine/state.ts';

/** Refs as GitHub keeps them for POST /git/refs: create-if-absent, 422 "Reference already exists". */
function refs(): { gh: RepoContext; created: string[]; existing: Set<string>; fail?: number } {
  const existing = new Set<string>();
  const created: string[] = [];
  const box: { gh: RepoContext; created: string[]; existing: Set<string>; fail?: number } = { gh: undefined as never, created, existing };
  box.gh = {
    owner: 'acme',
    repo: 'widgets',
    defaultBranch: 'main',
    botLogin: 'baton[bot]',
    workerWorkflow: 'baton-worker.yml',
    octokit: {
      request: async (route: string, params: { ref: string; sha: string }) => {
        if (route !== 'POST /repos/{owner}/{repo}/git/refs') throw new Error(`unexpected ${route}`);
        if (box.fail) throw Object.assign(new Error('Server Error'), { status: box.fail, response: { data: { message: 'Server Error' } } });
        if (existing.has(params.ref)) throw Object.assign(new Error('Reference already exists'), { status: 422, response: { data: { message: 'Reference already exists' } } });
        existing.add(params.ref);
        created.push(params.ref);
        return { status: 201, data: {} };
      },
    },
  } as unknown as RepoContext;
  return box;
}

const state = { ...emptyState(), runId: 'fix-7-1', runBranch: 'baton/fix-7-1', head: 'a'.repeat(40) };
const TTL = 300_000;

describe('the claim of one event on its run', () => {
  it('claims the next generation once, before the first effect, and not again while young', async () => {
    const r = refs();
    let now = 0;
    const memory = { gen: 4 };
    const claim = new EventClaim(r.gh, memory, () => now, TTL);
    await claim.ensure(state);
    now += 10_000;
    await claim.ensure(state);
    expect(r.created).toEqual([leaseRef('fix-7-1', 5)]);
    expect(memory.gen).toBe(5);
    expect(claim.claimed).toBe(true);
  });

  it('a generation claimed by another process first: LeaseTaken, nothing of this event may happen', async () => {
    const r = refs();
    r.existing.add(leaseRef('fix-7-1', 5));
    const memory = { gen: 4 };
    const claim = new EventClaim(r.gh, memory, () => 0, TTL);
    await expect(claim.ensure(state)).rejects.toBeInstanceOf(LeaseTaken);
    await expect(claim.ensure(state)).rejects.toMatchObject({ gen: 5 });
    expect(memory.gen).toBe(4);
    expect(claim.claimed).toBe(false);
  });

  it('a long event renews before its time-to-live by claiming the next generation itself', async () => {
    const r = refs();
    let now = 0;
    const memory = { gen: 0 };
    const claim = new EventClaim(r.gh, memory, () => now, TTL);
    await claim.ensure(state);
    now += TTL - leaseMargin(TTL) + 1;
    await claim.ensure(state);
    expect(r.created).toEqual([leaseRef('fix-7-1', 1), leaseRef('fix-7-1', 2)]);
    expect(memory.gen).toBe(2);
  });

  it('a renewal lost to a process that took the run over stops the event (LeaseExpired)', async () => {
    const r = refs();
    let now = 0;
    const memory = { gen: 0 };
    const claim = new EventClaim(r.gh, memory, () => now, TTL);
    await claim.ensure(state);
    r.existing.add(leaseRef('fix-7-1', 2)); // the taker's claim
    now += TTL;
    await expect(claim.ensure(state)).rejects.toBeInstanceOf(LeaseExpired);
  });

  it('any other refusal is an error, not a lost claim', async () => {
    const r = refs();
    r.fail = 502;
    const claim = new EventClaim(r.gh, { gen: 0 }, () => 0, TTL);
    await expect(claim.ensure(state)).rejects.toThrow('Server Error');
    await expect(claim.ensure(state)).rejects.not.toBeInstanceOf(LeaseTaken);
  });
});
