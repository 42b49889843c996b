// The App's write budget per installation (src/app/write-budget.ts), on the emulator with the
// App as production builds it — GitHub's pacing, the throttling and retry plugins, the budget's
// minute and hour windows — time compressed through the harness's timeScale, nothing switched off:
//  - a person's command during a burst of runs is served before the burst's writes;
//  - a spent budget defers writes (never fails them): runs say so in their status comments,
//    a person's command still goes through on the reserve, and every run finishes;
//  - a secondary limit that outlasts every retry defers the event, and the sweep finishes it.
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { WAITING_NOTICE } from '../../src/app/deferral-notice.ts';
import { SECONDARY_LIMIT_RETRIES } from '../../src/app/octokit.ts';
import { appRequests, openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const ASK = `name: asky
on: { labels: ["baton:ask"] }
steps:
  - id: ask
    ask: { questions: ["Which colour?"] }
  - id: after
    run: echo done > after.txt
`;
const ECHO = `name: echo
on: { labels: ["baton:echo"] }
steps:
  - id: one
    run: echo one > one.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const isWrite = (r: { identity: string; method: string }) => r.identity.startsWith('installation:') && r.method !== 'GET' && r.method !== 'HEAD';

/** The status comment's id on thread `n` (baton's comment holding the record). */
async function recordId(h: Harness, n: number): Promise<number> {
  const comments = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: n, per_page: 100 });
  const found = comments.find((c) => (c.body ?? '').startsWith('<!-- baton:record -->'));
  if (!found) throw new Error(`no status comment on #${n}`);
  return found.id;
}

describe('app: the write budget per installation', () => {
  it("a maintainer's `/baton cancel` during a burst of 20 runs is applied within a few of the installation's writes, not after the burst", async () => {
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK } });
    // The run to cancel has started (a command needs its record); then 19 more are labelled at once.
    const target = await openLabelled(h, 'baton:ask');
    await h.waitFor('the first run asks its question', async () => (await h!.record(target).catch(() => '')).includes('Which colour?'));
    const alice = h.as('alice');
    const numbers: number[] = [];
    for (let i = 0; i < 19; i++) numbers.push((await alice.rest.issues.create({ ...o, title: `Burst ${i}`, body: '' })).data.number);
    await Promise.all(numbers.map((n) => alice.rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:ask'] })));
    await alice.rest.issues.createComment({ ...o, issue_number: target, body: '/baton cancel' });
    await h.settle();

    expect(await h.record(target)).toContain(`— cancelled`);
    const log = h.emu.requestLog;
    const asked = log.findIndex((r) => r.identity === 'user:alice' && r.route === 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments' && r.path.endsWith(`/issues/${target}/comments`));
    const id = await recordId(h, target);
    const applied = log.findIndex((r, i) => i > asked && isWrite(r) && r.method === 'PATCH' && r.path.endsWith(`/issues/comments/${id}`));
    const between = log.slice(asked + 1, applied).filter(isWrite).length;
    const burst = log.slice(asked + 1).filter(isWrite).length;
    // The cancel's own writes and those left of its run's start (lifted to the command's priority),
    // each behind at most the writes let through to GitHub's pacing while it read: about 20 of the
    // burst's 130-odd (first in first out, every one of its writes queued behind the 19 starts: ~48).
    expect(burst).toBeGreaterThan(100);
    expect(between).toBeLessThanOrEqual(30);
    // Every run of the burst started all the same.
    for (const n of numbers) expect(await h.record(n)).toContain('Which colour?');
  }, 120_000);

  it("in a burst of 20 runs labelled at once, each run's first dispatch comes within three writes a run: the 👀 and the run's check follow it", async () => {
    const small = ['name: small', 'on: { labels: ["baton:small"] }', 'steps:', '  - { id: a, run: "echo a > a.txt" }', ''].join('\n');
    h = await startHarness({ files: { '.agents/workflows/small.yml': small } });
    const alice = h.as('alice');
    const numbers: number[] = [];
    for (let i = 0; i < 20; i++) numbers.push((await alice.rest.issues.create({ ...o, title: `Small ${i}`, body: '' })).data.number);
    const burstFrom = h.emu.requestLog.length;
    await Promise.all(numbers.map((n) => alice.rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:small'] })));
    await h.settle();

    const log = h.emu.requestLog.slice(burstFrom);
    const dispatches = log.flatMap((r, i) => (isWrite(r) && r.route.endsWith('/dispatches') && r.status < 300 ? [i] : []));
    expect(dispatches).toHaveLength(20);
    const lastStarted = dispatches.at(-1)!;
    // Up to the last run's first dispatch: its claim, run branch and dispatch for each run (the
    // claims' anchor commit once) — give or take a write let through while the starts read.
    expect(log.slice(0, lastStarted).filter(isWrite).length).toBeLessThanOrEqual(3 * 20 + 2);
    // Nothing users see was dropped for it: every run has its 👀, its status comment, and its
    // aggregate check — shown in progress on the commit it started from (completed "moved on" once
    // the step's commit became the run's head) and completed there at its end.
    for (const n of numbers) {
      expect(await h.record(n)).toContain('— succeeded');
      const reactions = (await alice.rest.reactions.listForIssue({ ...o, issue_number: n })).data;
      expect(reactions.map((r) => r.content)).toEqual(['eyes']);
    }
    const aggregates = [...h.emu.store.checkRuns.values()].filter((c) => c.name === 'baton / small');
    for (const n of numbers) {
      const mine = aggregates.filter((c) => c.externalId === `small-${n}-1`).map((c) => [c.status, c.conclusion]);
      expect(mine.sort(), `#${n}`).toEqual([['completed', 'neutral'], ['completed', 'success']]);
    }
    // Each once: the aggregate on both commits and the step's, per run.
    expect(log.filter((r) => isWrite(r) && r.route === 'POST /repos/{owner}/{repo}/check-runs')).toHaveLength(3 * 20);
  }, 120_000);

  it('a spent budget defers writes: runs say so in their status comments, a command still goes through, and all finish with nothing lost', async () => {
    // A compressed hour of 10.8 s with 40 writes in it, half kept for people: the three runs' starts
    // spend the rest, so their workers' results (seconds later: a worker's own time is not
    // compressed) wait for the next hour. The reserve covers the notices and a command, and the
    // writes of the run's event the command waits behind (it is lifted to the command's priority).
    const timeScale = 0.003;
    const hourMs = 3_600_000 * timeScale;
    const perHour = 40;
    h = await startHarness({
      files: { '.agents/workflows/echo.yml': ECHO },
      timeScale,
      writeBudget: { perHour, reservePercent: 50, noticeAfterMs: 60_000 },
      // The claims' time-to-live well past a compressed hour: a write waiting for budget is no dead process.
      lease: { ttlMs: 10 * hourMs },
    });
    const started = h;
    const numbers = [await openLabelled(h, 'baton:echo'), await openLabelled(h, 'baton:echo'), await openLabelled(h, 'baton:echo')];
    const noticed = new Set<number>();
    let stop = false;
    const watching = (async () => {
      while (!stop) {
        for (const n of numbers) if ((await started.comments(n).catch(() => [])).some((b) => b.includes(WAITING_NOTICE))) noticed.add(n);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    onTestFinished(() => {
      stop = true;
    });
    await h.waitFor('every run says it waits for the write budget', () => noticed.size === numbers.length);

    // A person's command while the budget is spent: served from the reserve, not after the hour.
    const asked = performance.now();
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: numbers[0]!, body: '/baton status' });
    await h.waitFor('the status reply', async () => (await started.comments(numbers[0]!)).some((b) => b.startsWith('@alice,')));
    expect(performance.now() - asked).toBeLessThan(hourMs / 4);

    await h.settle();
    stop = true;
    await watching;
    for (const n of numbers) {
      const record = await h.record(n);
      expect(record).toContain('— succeeded');
      expect(record).not.toContain(WAITING_NOTICE);
    }
    expect(h.deliveryFailures()).toEqual([]);
    // The budget held: no compressed hour saw more than its writes.
    const times = appRequests(h.emu).filter(isWrite).map((r) => Date.parse(r.at));
    const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + hourMs).length));
    expect(busiest).toBeLessThanOrEqual(perHour);
    // More writes than one hour's share for runs: they had to wait for the next.
    expect(times.length).toBeGreaterThan(perHour / 2);
  }, 120_000);

  it('a secondary limit on every retry defers the event instead of dropping it, and the sweep finishes it', async () => {
    h = await startHarness({ files: { '.agents/workflows/echo.yml': ECHO } });
    const route = 'POST /repos/{owner}/{repo}/check-runs';
    h.emu.faults.add({ kind: 'secondary-rate-limit', route, status: 403, retryAfter: 1, times: 1 + SECONDARY_LIMIT_RETRIES });
    const n = await openLabelled(h, 'baton:echo');
    await h.settle();
    // Every try was refused: the label's work stopped after its first dispatch (a run's check is
    // shown after it) and before its check and record — as a process dying there would — and is kept.
    expect(h.emu.faults.injected.filter((f) => f.target === route)).toHaveLength(1 + SECONDARY_LIMIT_RETRIES);
    const dispatched = () => appRequests(h!.emu).filter((r) => r.route.endsWith('/dispatches') && r.status < 300);
    expect(dispatched()).toHaveLength(1);
    expect([...h.emu.store.checkRuns.values()].filter((c) => c.name.startsWith('baton /'))).toEqual([]);
    // Not done yet, not lost: the label's delivery is the one outstanding.
    expect(h.deliveryFailures()).toEqual([expect.stringMatching(/^issues\.labeled .*work failed$/)]);

    await h.app.sweep();
    await h.settle();
    expect(await h.record(n)).toContain('— succeeded');
    expect(h.deliveryFailures()).toEqual([]);
    // Applied again, the start looked up what it had done: its worker was not dispatched twice, and
    // its check, missing on GitHub, was created then (once, on the commit the run started from).
    expect(dispatched()).toHaveLength(1);
    const aggregate = [...h.emu.store.checkRuns.values()].filter((c) => c.name === 'baton / echo');
    expect(aggregate.map((c) => c.conclusion).sort()).toEqual(['neutral', 'success']);
  }, 60_000);
});
