// Refs baton leaves behind are bounded (docs/operations.md, "Refs baton keeps"): runs go to
// their pull request, the PRs are closed, the claims' grace period passes (on the App's lease
// clock, moved forward: no sleep) and the sweep runs — no claim and no branch of those runs is
// left. Claims are only deleted a grace period after a newer record was seen: the test also
// shows that a sweep within the grace period deletes none.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo "hello" > hello.txt
  - id: pr
    pull-request: { title: "Hello for #\${{ issue.number }}" }
`;
const GRACE_MS = 10 * 60_000;
// 20 by default (about a day of a busy repository); REFS_RUNS=50 for the full count (minutes on a shared machine).
const RUNS = Number(process.env.REFS_RUNS ?? 20);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function refsUnder(h: Harness, prefix: string): Promise<string[]> {
  const refs = await h.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: prefix, per_page: 100 });
  return (refs as Array<{ ref: string }>).map((r) => r.ref);
}

describe('app: refs of finished runs are removed', () => {
  it(`leaves no claim and no branch of ${RUNS} runs whose pull requests were closed, once the grace period has passed`, async () => {
    let skew = 0;
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO }, lease: { clock: () => performance.now() + skew, graceMs: GRACE_MS } });
    const threads: number[] = [];
    for (let i = 0; i < RUNS; i++) threads.push(await openLabelled(h, 'baton:hello', { title: `Hello ${i}` }));
    await h.settle();
    const pulls = (await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 })).filter((p) => p.head.ref.startsWith('baton/'));
    expect(pulls).toHaveLength(RUNS);
    const claimsAtEnd = (await refsUnder(h, 'baton/leases/')).length;
    expect(claimsAtEnd).toBeGreaterThanOrEqual(RUNS * 2);
    // Before the PRs close, the runs' branches stay: they are what the PRs show.
    await h.app.sweep();
    expect((await refsUnder(h, 'heads/baton/')).filter((r) => !r.includes('/steps/'))).toHaveLength(RUNS);
    for (const p of pulls) await h.as('alice').rest.pulls.update({ ...o, pull_number: p.number, state: 'closed' });
    await h.settle();
    expect(await refsUnder(h, 'heads/baton/')).toEqual([]);
    // Within the grace period no claim goes, however often the sweep comes by.
    await h.app.sweep();
    expect((await refsUnder(h, 'baton/leases/')).length).toBe(claimsAtEnd);
    skew += GRACE_MS + 1;
    for (let i = 0; i < 10 && (await refsUnder(h, 'baton/leases/')).length; i++) await h.app.sweep();
    expect(await refsUnder(h, 'baton/leases/')).toEqual([]);
    // The records are untouched.
    for (const n of [threads[0]!, threads[RUNS - 1]!]) expect(await h.record(n)).toMatch(/succeeded|Succeeded|✅/);
  }, 240_000);
});
