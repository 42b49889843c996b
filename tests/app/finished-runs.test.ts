// What the App keeps in memory of a run once it has finished: nothing (src/hosts/github/memory.ts).
// A run still going is kept (its next event is near and saves its reads); a finished one's state,
// status comment body and outputs go, and its next event — a `/baton retry`, a late webhook, the
// sweep — loads it from GitHub as a fresh process would, with every rule of that path kept.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, openLabelled, startHarness, type Harness } from './harness.ts';
import { FLAKY, FLAKY_AGENTS, SHIP } from './stories.ts';

const o = { owner: 'acme', repo: 'widgets' };
const THREAD_READ = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Runs that wait for `/baton approve`, then are approved and finish. */
async function shipRuns(count: number): Promise<{ h: Harness; numbers: number[] }> {
  const harness = (h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP } }));
  const numbers: number[] = [];
  for (let i = 0; i < count; i++) numbers.push(await openLabelled(harness, 'baton:ship'));
  await harness.settle();
  return { h: harness, numbers };
}

describe('app: memory of finished runs', () => {
  it('keeps runs waiting on people in memory, and nothing of them once they have finished', async () => {
    const { h, numbers } = await shipRuns(4);
    for (const n of numbers) expect(await h.record(n)).toContain('Ship the build?');
    const waiting = h.app.runs.retained();
    expect(waiting.runs).toBe(4);
    // Each holds its state and its status comment's body (a few KB).
    expect(waiting.bytes).toBeGreaterThan(4 * 2000);

    for (const n of numbers) await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    for (const n of numbers) expect(await h.record(n)).toContain('— succeeded');
    expect(h.app.runs.retained()).toEqual({ runs: 0, bytes: 0 });
    h.emu.assertNoViolations();
  }, 60_000);

  it('`/baton retry` of a failed run it released loads the run from GitHub and runs the step again to success', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': FLAKY }, agents: FLAKY_AGENTS });
    const n = await openLabelled(h, 'baton:build');
    const runId = `build-${n}-1`;
    await h.settle();
    expect(await h.record(n)).toContain(`run \`${runId}\` — failed`);
    expect(h.app.runs.retained()).toEqual({ runs: 0, bytes: 0 });

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry build' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| build \|[^|]*\| 2 \|/);
    expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton ${runId} build #1`, `baton ${runId} build #2`, `baton ${runId} after #1`]);
    expect(h.app.runs.retained()).toEqual({ runs: 0, bytes: 0 });
    h.emu.assertNoViolations();
  }, 60_000);

  it('a late copy of a finished run\'s last worker webhook is read from GitHub and writes nothing', async () => {
    const { h, numbers } = await shipRuns(1);
    const n = numbers[0]!;
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    const before = await h.record(n);
    expect(before).toContain('— succeeded');

    const from = appRequests(h.emu).length;
    const last = h.emu.webhooks.deliveries.filter((d) => d.event === 'workflow_run' && d.action === 'completed').at(-1)!;
    expect((last.payload as { workflow_run: { display_title: string } }).workflow_run.display_title).toBe(`baton ship-${n}-1 ship #1`);
    await h.emu.webhooks.redeliver(last.id);
    await h.settle();
    const after = appRequests(h.emu).slice(from);
    expect(after.filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);
    // Nothing was kept of the run: its record was read again from the thread.
    expect(after.map((r) => r.route)).toContain(THREAD_READ);
    expect(await h.record(n)).toBe(before);
    expect(h.app.runs.retained()).toEqual({ runs: 0, bytes: 0 });
    h.emu.assertNoViolations();
  }, 60_000);
});
