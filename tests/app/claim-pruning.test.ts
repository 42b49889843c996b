// Claims are deleted on GitHub's clock alone (src/hosts/github/lease.ts, prune.ts): a record's
// `updated_at` more than the grace period plus CLOCK_MARGIN_MS before the `Date` of the answer
// that listed it. So an App that has just restarted — which has seen no record for any time at
// all — deletes them; and a record written again since (its comment edited: `updated_at`
// younger) keeps the claims up to it. Time passes on both clocks at once, the emulator's
// (GitHub's stamps and `Date`) and the App's lease clock: no sleep.
import { afterEach, describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS } from '../../src/app/prune.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const GRACE_MS = 10 * 60_000;
const ASK = `name: asky
on: { labels: ["baton:ask"] }
steps:
  - id: ask
    ask: { questions: ["Which colour?"] }
  - id: after
    run: echo done > after.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const claims = async (h: Harness) =>
  ((await h.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'baton/leases/', per_page: 100 })) as Array<{ ref: string }>).map((r) => Number(r.ref.split('/').at(-1)));

describe('app: claims are pruned on GitHub’s clock', () => {
  it('after a restart, deletes the claims of a record older than the grace period plus the margin, and keeps those of a record written since', async () => {
    let skew = 0;
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK }, lease: { clock: () => performance.now() + skew, graceMs: GRACE_MS } });
    const started = h;
    const pass = (ms: number) => {
      skew += ms;
      started.emu.clock.advance(ms);
    };
    const n = await openLabelled(h, 'baton:ask');
    await h.settle();
    expect(await h.record(n)).toContain('Which colour?');
    const asked = await claims(h);
    expect(asked.length).toBeGreaterThan(0);

    // The question waits past the grace period and the margin; then the answer moves the run on
    // to its end: new claims, and the record (the same comment) written again now.
    pass(GRACE_MS + CLOCK_MARGIN_MS + 2_000);
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton answer Blue.' });
    await h.settle();
    expect(await h.record(n)).toMatch(/succeeded/);
    const all = await claims(h);
    expect(all.length).toBeGreaterThan(asked.length);

    // A new process, which has seen no record yet. The comment was posted long ago, but its
    // record was written just now: every claim stays, the old ones too, for the grace period.
    await h.restart();
    expect((await h.app.sweep()).claimsPruned).toBe(0);
    pass(GRACE_MS);
    expect((await h.app.sweep()).claimsPruned).toBe(0);
    expect(await claims(h)).toEqual(all);

    // Past the grace period and the margin on GitHub's clock, since that write: they all go.
    pass(CLOCK_MARGIN_MS + 2_000);
    expect((await h.app.sweep()).claimsPruned).toBe(all.length);
    expect(await claims(h)).toEqual([]);
    expect(await h.record(n)).toMatch(/succeeded/);
  });
});
