// Attack: claims made by someone else freeze a run. A writer creates the refs where a run's
// next claims go, `refs/baton/leases/<run>/<n+1…n+25>`; each event would wait one claim
// time-to-live per ref (about 100 minutes in production for 25), then drop the event, with
// nothing said in the thread. Defence: a claim baton can tell is not its own (it points at no
// commit a baton process made for its claims: hosts/github/lease.ts) is gone past at once,
// and the thread is told once per run what was found (app/runs.ts foreignClaim).
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseReport } from '../../src/app/runs.ts';
import { leaseRef } from '../../src/hosts/github/lease.ts';
import { HARNESS_LEASE_TTL_MS, startHarness, type Harness } from '../app/harness.ts';
import { ASK, o, startAsk } from '../reliability/scenario.ts';

const FORGED = 25;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('security: claim refs a writer made', () => {
  it(`${FORGED} claims pre-created on the run's next generations freeze nothing, and the thread says so once`, async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const reports: LeaseReport[] = [];
    for (const app of h.apps) app.runs.onLease = (r) => reports.push(r);
    const { number, runId } = await startAsk(h);
    const gen = Number(/ gen=(\d+) /.exec(await h.record(number))?.[1]);
    expect(gen).toBeGreaterThan(0);

    // The writer: every next claim of the run, on main's tip.
    const alice = h.as('alice');
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    for (let g = gen + 1; g <= gen + FORGED; g++) await alice.rest.git.createRef({ ...o, ref: leaseRef(runId, g), sha: main });

    // The run's next event (the answer) goes through: the run ends, promptly.
    await alice.rest.issues.createComment({ ...o, issue_number: number, body: '/baton answer answer.txt' });
    await h.settle();
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    const waited = reports.reduce((sum, r) => sum + r.waitMs, 0);
    expect(waited).toBeLessThan(HARNESS_LEASE_TTL_MS);
    expect(reports.reduce((sum, r) => sum + r.takenOver, 0)).toBeGreaterThanOrEqual(FORGED);

    // One notice in the thread, naming the first ref found and where it points — not one per ref.
    const notices = (await h.comments(number)).filter((c) => c.includes('baton:reply foreign-claim/'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`found \`${leaseRef(runId, gen + 1)}\`, which baton did not make: it points at ${main.slice(0, 7)}`);
    h.emu.assertNoViolations();
  }, 90_000);
});
