// The App's write budget under each reading of whose count GitHub's secondary limits are
// (tests/emulator/readings.ts `secondaryLimitIdentity`: per installation, per App, per the App's
// one `[bot]` account — the docs name none): two installations of the App, each with a burst of
// runs labelled at once. The emulator counts GitHub's documented limits (80 content-creating
// writes a minute, 500 an hour) per the reading and refuses over them as GitHub does; the App is
// the one `npm start` builds, its budget the App's (every installation together: its default),
// time compressed through the harness's timeScale, pacing and retries on.
//  - with GitHub's numbers, every run of both installations finishes, nothing is dropped, and
//    GitHub refuses nothing, though each installation's pacing alone would let both exceed 80;
//  - with a budget spent by the burst, a run whose write waits long says so, and the wait its
//    notice announces is not shorter than the wait that follows, beyond a stated tolerance: the
//    estimate counts the writes of both installations (and the notices still to come).
import { afterEach, describe, expect, it } from 'vitest';
import { roughly, WAITING_NOTICE } from '../../src/app/deferral-notice.ts';
import type { DoorReport } from '../../src/app/write-budget.ts';
import { BY_HAND_READING_VALUES } from '../emulator/readings.ts';
import { CONTENT_CREATION_LIMITS } from '../emulator/secondary-limits.ts';
import { initWorkerWorkflow, startHarness, type Harness, type RepoName } from './harness.ts';

const SMALL = ['name: small', 'on: { labels: ["baton:small"] }', 'steps:', '  - { id: a, run: "echo a > a.txt" }', ''].join('\n');
const ACME: RepoName = { owner: 'acme', repo: 'widgets' };
const GLOBEX: RepoName = { owner: 'globex', repo: 'gadgets' };
/** Runs per installation: together their writes come faster than 80 a minute (each installation's pacing allows 60). */
const RUNS = 8;
/** GitHub's minute, in GitHub's milliseconds. */
const MINUTE = 60_000;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Two installations of the App (acme, globex), each with `runs` issues labelled at once; settles. */
async function burst(h: Harness, runs: number, noticed: Set<string>): Promise<Array<[RepoName, number]>> {
  await h.emu.createRepo(GLOBEX.owner, GLOBEX.repo, { 'README.md': '# gadgets\n', '.github/workflows/baton-worker.yml': await initWorkerWorkflow(), '.agents/workflows/small.yml': SMALL });
  h.emu.store.setRole(GLOBEX.owner, GLOBEX.repo, 'alice', 'admin');
  expect(h.emu.store.installation(GLOBEX.owner).id).not.toBe(h.emu.store.installation(ACME.owner).id);
  const alice = h.as('alice');
  const threads: Array<[RepoName, number]> = [];
  for (const where of [ACME, GLOBEX]) for (let i = 0; i < runs; i++) threads.push([where, (await alice.rest.issues.create({ ...where, title: `Small ${i}`, body: '' })).data.number]);
  let stop = false;
  const watching = (async () => {
    while (!stop) {
      for (const [where, n] of threads) if ((await h.comments(n, where).catch(() => [])).some((b) => b.includes(WAITING_NOTICE))) noticed.add(`${where.owner}/${where.repo}#${n}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    await Promise.all(threads.map(([where, n]) => alice.rest.issues.addLabels({ ...where, issue_number: n, labels: ['baton:small'] })));
    await h.settle();
  } finally {
    stop = true;
    await watching;
  }
  // Nothing lost: every run of both installations finished, every delivery's work was done.
  for (const [where, n] of threads) {
    const record = await h.record(n, where);
    expect(record, `${where.owner}/${where.repo}#${n}`).toContain('— succeeded');
    expect(record).not.toContain(WAITING_NOTICE);
  }
  expect(h.deliveryFailures()).toEqual([]);
  return threads;
}

/** The most of the App's writes GitHub received within any `windowMs` (real ms), every installation together. */
function busiest(h: Harness, windowMs: number): number {
  const times = h.emu.requestLog.filter((r) => r.identity.startsWith('installation:') && r.method !== 'GET' && r.method !== 'HEAD').map((r) => Date.parse(r.at));
  return Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));
}

describe.each(BY_HAND_READING_VALUES.secondaryLimitIdentity)('app: the write budget when GitHub counts per %s', (reading) => {
  it("two installations bursting at once with GitHub's numbers: every run finishes, nothing dropped, and GitHub refuses nothing", async () => {
    // GitHub's minute of 15 s: each installation's pacing (a write a second, scaled) lets the two
    // together write faster than 80 a minute, and the App keeps up with it on a busy machine.
    const timeScale = 0.25;
    h = await startHarness({ files: { '.agents/workflows/small.yml': SMALL }, readings: { secondaryLimitIdentity: reading }, timeScale, lease: { ttlMs: 60_000 } });
    await burst(h, RUNS, new Set());
    // GitHub refused nothing: the App's writes kept within the limits, whoever GitHub counts them for…
    expect(h.emu.secondaryLimits.refused).toEqual([]);
    // …though the burst came near them (each installation's pacing alone allows 60 a minute, both 120).
    expect(busiest(h, MINUTE * timeScale)).toBeGreaterThan(CONTENT_CREATION_LIMITS.perMinute / 2);
  }, 240_000);

  it('a waiting run is told no shorter a wait than follows: the estimate counts the writes of every installation sharing the budget', async () => {
    const door: DoorReport[] = [];
    // A compressed hour of 36 s with 60 writes in it (54 for runs): the starts of both
    // installations' runs spend it, so their workers' results (seconds later: a worker's own time is
    // not compressed) wait for the hour to move on — tens of minutes, told in their status comments.
    const timeScale = 0.01;
    h = await startHarness({ files: { '.agents/workflows/small.yml': SMALL }, readings: { secondaryLimitIdentity: reading }, timeScale, writeBudget: { perHour: 60 }, onDoor: (r) => door.push(r), lease: { ttlMs: 10 * 3_600_000 * timeScale } });
    const noticed = new Set<string>();
    await burst(h, 3, noticed);
    expect(h.emu.secondaryLimits.refused).toEqual([]);
    // Runs waited, and said so.
    const told = door.filter((r) => r.noticedEstimateMs !== undefined);
    expect(noticed.size).toBeGreaterThan(0);
    expect(told.length).toBeGreaterThan(0);
    for (const r of told) {
      // What the run's status comment showed: "about N minutes" (never under a minute).
      const shown = Number(/about (\d+) minute/.exec(roughly(r.noticedEstimateMs!))![1]);
      // The wait that followed, until the write was let through, in GitHub's time, is at most what
      // was shown, give or take the notice's rounding (half a minute) and a quarter: the estimate
      // is made from the writes waiting then (the budget's wait for all of them, or its
      // installation's at the pace its queue moved); writes that arrive later and go first by
      // turn, and a pace that slows (here everything this busy machine does counts a hundredfold),
      // come on top.
      expect(r.waitedSinceNoticeMs! / MINUTE, `${r.lane}: told about ${shown} minute(s)`).toBeLessThanOrEqual(shown * 1.25 + 0.5);
    }
  }, 240_000);
});
