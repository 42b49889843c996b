// Refs baton leaves behind are bounded (docs/operations.md, "Refs baton keeps"): runs go to
// their pull request, a person merges the PRs, the claims' grace period and its margin pass (on
// GitHub's clock — the emulator's stamps and `Date` — and the App's lease clock, both moved
// forward: no sleep) and the sweep runs — no claim and no branch of those runs is left. Claims
// are only deleted once a newer record is that old on GitHub's clock: the test also shows that
// a sweep within the grace period deletes none.
//
// How many runs: 8 here (enough to overlap their claims and jobs; the bench's
// `claim_refs_after_20_runs` counts 20), REFS_RUNS=50 for the count. A run costs here what it costs on
// GitHub — about 16 writes, which the App's Octokit sends one at a time per installation
// (GitHub's guidance, kept on in tests), and one worker job on the emulated runner (checkout,
// the agent step, the upload: a handful of processes). Measured on a shared 2-core machine: ~1.6 s
// of CPU per run (the worker jobs' processes and the emulator's git calls, which the serial
// write queue waits on; the pacing between writes is compressed by timeScale and the sweep is
// a few requests), so 50 runs are ~85 s of CPU, over 2 minutes of wall time once the cores are
// shared; 20 fit in about a minute, 8 in about 20 s. The runs are started together: their reads and jobs overlap
// the write queue. Compressing the pacing further gains nothing: it is not what is waited on.
import { afterEach, describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS } from '../../src/app/prune.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';
import { HELLO } from './stories.ts';

const o = { owner: 'acme', repo: 'widgets' };
const GRACE_MS = 10 * 60_000;
const RUNS = Number(process.env.REFS_RUNS ?? 8);

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
  it(`leaves no claim and no branch of ${RUNS} runs whose pull requests were merged, once the grace period has passed`, async () => {
    let skew = 0;
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO }, lease: { clock: () => performance.now() + skew, graceMs: GRACE_MS } });
    const started = h;
    const threads = await Promise.all(Array.from({ length: RUNS }, (_, i) => openLabelled(started, 'baton:hello', { title: `Hello ${i}` })));
    await h.settle();
    const pulls = (await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 })).filter((p) => p.head.ref.startsWith('baton/'));
    expect(pulls).toHaveLength(RUNS);
    const claimsAtEnd = (await refsUnder(h, 'baton/leases/')).length;
    expect(claimsAtEnd).toBeGreaterThanOrEqual(RUNS * 2);
    // Before the PRs are merged, the runs' branches stay: they are what the PRs show.
    await h.app.sweep();
    expect((await refsUnder(h, 'heads/baton/')).filter((r) => !r.includes('/steps/'))).toHaveLength(RUNS);
    // A person merges them (each adds the same hello.txt: no conflict), as they come.
    for (const p of pulls) await h.as('alice').rest.pulls.merge({ ...o, pull_number: p.number, sha: p.head.sha });
    await h.settle();
    const merged = await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'closed', per_page: 100 });
    expect(merged.filter((p) => p.merged_at !== null)).toHaveLength(RUNS);
    expect(await refsUnder(h, 'heads/baton/')).toEqual([]);
    // Within the grace period no claim goes, however often the sweep comes by.
    await h.app.sweep();
    expect((await refsUnder(h, 'baton/leases/')).length).toBe(claimsAtEnd);
    skew += GRACE_MS + CLOCK_MARGIN_MS + 2_000;
    h.emu.clock.advance(GRACE_MS + CLOCK_MARGIN_MS + 2_000);
    for (let i = 0; i < 10 && (await refsUnder(h, 'baton/leases/')).length; i++) await h.app.sweep();
    expect(await refsUnder(h, 'baton/leases/')).toEqual([]);
    // The records are untouched.
    for (const n of [threads[0]!, threads[RUNS - 1]!]) expect(await h.record(n)).toMatch(/succeeded|Succeeded|✅/);
  }, RUNS * 12_000); // about 3 s a run on two idle cores; room for a loaded machine

  it('a finished run without a pull request keeps its branch when it committed something (its result), and loses it to the sweep when it committed nothing', async () => {
    const BUILD = 'name: build\non: { labels: ["baton:build"] }\nsteps:\n  - { id: build, run: echo built > built.txt }\n';
    const LOOK = 'name: look\non: { labels: ["baton:look"] }\nsteps:\n  - { id: look, run: "true" }\n';
    h = await startHarness({ files: { '.agents/workflows/build.yml': BUILD, '.agents/workflows/look.yml': LOOK } });
    const built = await openLabelled(h, 'baton:build');
    const looked = await openLabelled(h, 'baton:look');
    await h.settle();
    for (const n of [built, looked]) expect(await h.record(n)).toContain('— succeeded');
    expect((await refsUnder(h, 'heads/baton/')).sort()).toEqual([`refs/heads/baton/build-${built}-1`, `refs/heads/baton/look-${looked}-1`]);

    const report = await h.app.sweep();
    expect(report.branchesRemoved).toBe(1);
    expect(await refsUnder(h, 'heads/baton/')).toEqual([`refs/heads/baton/build-${built}-1`]);
    // Kept while it holds the result: the next sweeps leave it too.
    await h.app.sweep();
    expect(await refsUnder(h, 'heads/baton/')).toEqual([`refs/heads/baton/build-${built}-1`]);
  }, 60_000);
});
