// Claims read GitHub's answers for what they say (hosts/github/lease.ts): "Reference update
// failed" (given now and then with valid data: github/rest-api-description#4887) and a create
// whose answer is lost after GitHub wrote the ref settle nothing and are sent again; a process
// that meets its own claim on the retry knows it by the commit the claim points at and never
// waits a time-to-live for itself; and a claim ref no baton process made never freezes a run.
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseReport } from '../../src/app/runs.ts';
import { leaseRef } from '../../src/hosts/github/lease.ts';
import { HARNESS_LEASE_TTL_MS, type Harness } from '../app/harness.ts';
import { expectFlowSucceeded, flowHarness, labelFlow, o, startAsk, ASK } from './scenario.ts';
import { startHarness } from '../app/harness.ts';

const CREATE_REF = 'POST /repos/{owner}/{repo}/git/refs';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Every lease report of every app process of the harness, from now on. */
function leaseReports(h: Harness): LeaseReport[] {
  const reports: LeaseReport[] = [];
  for (const app of h.apps) {
    const before = app.runs.onLease;
    app.runs.onLease = (r) => {
      reports.push(r);
      before?.(r);
    };
  }
  return reports;
}

describe('reliability: the claims meet the answers GitHub gives', () => {
  it.each([
    ['422 "Reference update failed"', 'ref-update-failed'],
    ['the ref written, the answer lost (502)', 'lost-answer'],
  ] as const)('a run whose claims get %s ends as always, no claim taken over, nothing dispatched twice', async (_, kind) => {
    h = await flowHarness();
    const reports = leaseReports(h);
    // Every other create of a ref meets the fault, claims and branches alike.
    h.emu.faults.add({ kind, route: CREATE_REF, probability: 0.5 });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    const faulted = h.emu.faults.injected.filter((f) => f.kind === kind && f.target === CREATE_REF).length;
    expect(faulted).toBeGreaterThan(1);
    await expectFlowSucceeded(h, number, runId);
    // No process waited on a claim at all (one process: every claim it met was its own).
    expect(reports.filter((r) => r.lost > 0 || r.takenOver > 0)).toEqual([]);
  }, 90_000);

  it('three replicas whose lost races are answered "Reference update failed" (readings.refCreateRace) end the run as one process does', async () => {
    h = await flowHarness({ replicas: 3, readings: { refCreateRace: 'update-failed' } });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    await expectFlowSucceeded(h, number, runId);
  }, 120_000);

  it('a claim ref no baton process made: the run goes on past it at once, and the thread says so once', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const reports = leaseReports(h);
    const { number, runId } = await startAsk(h);
    const gen = Number(/ gen=(\d+) /.exec(await h.record(number))?.[1]);
    expect(gen).toBeGreaterThan(0);
    // Someone who can create refs puts one where the run's next claim goes, on main's tip.
    const alice = h.as('alice');
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    await alice.rest.git.createRef({ ...o, ref: leaseRef(runId, gen + 1), sha: main });
    await alice.rest.issues.createComment({ ...o, issue_number: number, body: '/baton answer answer.txt' });
    await h.settle();
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    const notices = (await h.comments(number)).filter((c) => c.includes(`baton:reply foreign-claim/${runId} -->`));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`found \`${leaseRef(runId, gen + 1)}\`, which baton did not make: it points at ${main.slice(0, 7)}`);
    // Gone past at once, not after a whole time-to-live.
    const waits = reports.filter((r) => r.lost > 0);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.waitMs).toBeLessThan(HARNESS_LEASE_TTL_MS / 2);
    h.emu.assertNoViolations();
  }, 60_000);
});
