// Refs left behind (docs/operations.md, "Refs baton keeps"): 20 runs of a small workflow go to
// their pull request on the emulator with the real App, the PRs are closed, the claims' grace
// period passes on the App's lease clock and on GitHub's (both moved forward, not waited) and the sweep runs; then the
// claims and `baton/` branches still on the repository are counted. One measurement feeds both figures.
import { openLabelled, startHarness } from '../../tests/app/harness.ts';
import { HELLO } from '../../tests/app/stories.ts';
import { CLOCK_MARGIN_MS } from '../../src/app/prune.ts';
import type { Figure } from './figure.ts';

const RUNS = 20;
const GRACE_MS = 10 * 60_000;
const o = { owner: 'acme', repo: 'widgets' };

let measured: Promise<{ claims: number; branches: number }> | undefined;

function afterTwentyRuns(): Promise<{ claims: number; branches: number }> {
  measured ??= (async () => {
    let skew = 0;
    const h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO }, lease: { clock: () => performance.now() + skew, graceMs: GRACE_MS } });
    try {
      const alice = h.as('alice');
      const refs = async (prefix: string) => (await alice.paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: prefix, per_page: 100 })).length;
      for (let i = 0; i < RUNS; i++) await openLabelled(h, 'baton:hello', { title: `Hello ${i}` });
      await h.settle();
      const pulls = await alice.paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 });
      for (const p of pulls) await alice.rest.pulls.update({ ...o, pull_number: p.number, state: 'closed' });
      await h.settle();
      await h.app.sweep();
      // Past the grace period on both clocks: the App's (its views) and GitHub's (the records' stamps the sweep compares).
      skew += GRACE_MS + CLOCK_MARGIN_MS + 2_000;
      h.emu.clock.advance(GRACE_MS + CLOCK_MARGIN_MS + 2_000);
      for (let i = 0; i < 5 && (await refs('baton/leases/')); i++) await h.app.sweep();
      return { claims: await refs('baton/leases/'), branches: await refs('heads/baton/') };
    } finally {
      await h.close();
    }
  })();
  return measured;
}

export const claimRefsAfter20Runs: Figure = {
  name: 'claim_refs_after_20_runs',
  description: 'claim refs left after 20 finished runs, their PRs closed and the grace period passed',
  unit: 'refs',
  target: { op: '<=', value: 0 },
  async measure() {
    return (await afterTwentyRuns()).claims;
  },
};

export const branchesAfter20Runs: Figure = {
  name: 'branches_after_20_runs',
  description: 'baton/ branches left after 20 finished runs whose PRs were closed',
  unit: 'branches',
  target: { op: '<=', value: 0 },
  async measure() {
    return (await afterTwentyRuns()).branches;
  },
};
