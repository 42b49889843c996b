// A claim's age is counted from when its create went out to GitHub, not from when it was queued
// (hosts/github/lease.ts): behind a deep write queue — every run's writes paced one a second per
// installation — an event whose own work is short never renews its claim, while an event whose
// own work is long still does. The App's Octokit as production builds it (throttling, its write
// queue), time compressed (TEST_TIME_SCALE: writes 10 ms apart), GitHub a fetch that creates refs.
import { describe, expect, it } from 'vitest';
import { batonOctokit } from '../../src/app/octokit.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { EventClaim, leaseMargin, LEASE_PREFIX } from '../../src/hosts/github/lease.ts';
import { emptyState } from '../../src/engine/state.ts';
import { TEST_TIME_SCALE } from './harness.ts';

/** A write a second, compressed: how long the write queue takes per queued write. */
const WRITE_MS = 1000 * TEST_TIME_SCALE;
/** The claims' time-to-live, compressed alike (production: 5 minutes, the renewal a minute before). */
const TTL_MS = 40 * WRITE_MS;
/** Other runs' writes already queued when the event claims: their wait alone is past the renewal point. */
const QUEUED = 60;

/** The App's Octokit against a GitHub that creates each ref once (create-if-absent, as POST git/refs). */
function app() {
  const refs = new Set<string>();
  const claims: string[] = [];
  const github: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { ref?: string }) : {};
    const json = (status: number, data: unknown) => new Response(JSON.stringify(data), { status, headers: { 'content-type': 'application/json' } });
    if (init?.method === 'POST' && url.endsWith('/git/refs') && body.ref) {
      if (refs.has(body.ref)) return json(422, { message: 'Reference already exists' });
      refs.add(body.ref);
      if (body.ref.startsWith(LEASE_PREFIX)) claims.push(body.ref);
      return json(201, { ref: body.ref, object: { sha: 'a'.repeat(40) } });
    }
    return json(200, {});
  };
  const Octokit = batonOctokit({ timeScale: TEST_TIME_SCALE });
  const octokit = new Octokit({ auth: { token: 'installation-token' }, request: { fetch: github } });
  const gh = { owner: 'acme', repo: 'widgets', defaultBranch: 'main', botLogin: 'baton[bot]', workerWorkflow: 'baton-worker.yml', octokit } as unknown as RepoContext;
  /** `n` writes of other runs, queued now (not awaited). */
  const queueWrites = (n: number) => Array.from({ length: n }, (_, i) => octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner: 'acme', repo: 'widgets', ref: `refs/heads/other-${refs.size}-${i}`, sha: 'b'.repeat(40) }));
  return { gh, claims, queueWrites };
}

const state = (runId: string) => ({ ...emptyState(), runId, runBranch: `baton/${runId}`, head: 'a'.repeat(40) });
const clock = () => performance.now();

describe('claims behind a deep write queue', () => {
  it('an event whose own work is short never renews, however long its claim waited in the queue', async () => {
    const { gh, claims, queueWrites } = app();
    const others = queueWrites(QUEUED);
    const claim = new EventClaim(gh, { gen: 0 }, clock, TTL_MS);
    const queuedAt = clock();
    await claim.ensure(state('fix-7-1'));
    // The claim waited behind every queued write: longer than a claim may go unrenewed.
    expect(clock() - queuedAt).toBeGreaterThan(TTL_MS - leaseMargin(TTL_MS));
    // The event's next effects (short work of its own) check the claim again: still young.
    await claim.ensure(state('fix-7-1'));
    await claim.ensure(state('fix-7-1'));
    expect(claims).toEqual([`${LEASE_PREFIX}fix-7-1/1`]);
    await Promise.all(others);
  });

  it('an event whose own work is long still renews before its time-to-live', async () => {
    const { gh, claims, queueWrites } = app();
    const others = queueWrites(QUEUED);
    const claim = new EventClaim(gh, { gen: 0 }, clock, TTL_MS);
    await claim.ensure(state('fix-8-1'));
    await Promise.all(others);
    // Its own work runs past the renewal point (measured from the claim's write).
    await new Promise((resolve) => setTimeout(resolve, TTL_MS - leaseMargin(TTL_MS) + WRITE_MS));
    await claim.ensure(state('fix-8-1'));
    expect(claims).toEqual([`${LEASE_PREFIX}fix-8-1/1`, `${LEASE_PREFIX}fix-8-1/2`]);
  });
});
