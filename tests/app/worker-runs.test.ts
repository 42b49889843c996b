// What becomes of an attempt whose worker run stops existing or is stopped by GitHub,
// end to end on the real worker: a run deleted by a person (or expired with the
// repository's retention) answers 404, and a job past its `timeout-minutes` is cancelled
// by GitHub. Each is a failed attempt with its reason in the record; the retry policy
// then applies, and no webhook delivery fails on the way.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, openLabelled, startHarness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});


const workflow = (retries: number) => `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
    retries: ${retries}
`;

/** Webhook deliveries the app failed (a thrown handler answers 500): none may fail. */
const failedDeliveries = (h: Harness) => h.emu.webhooks.deliveries.filter((d) => !d.dropped && (d.error !== undefined || (d.status ?? 200) >= 300));

const workerRuns = (h: Harness) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml'));

/** The first attempt's worker run finishes while its workflow_run.completed webhook is lost; then alice deletes it. */
async function deletedFirstAttempt(h: Harness): Promise<{ n: number; runId: number }> {
  h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
  const n = await openLabelled(h, 'baton:build');
  await h.settle();
  const first = workerRuns(h)[0]!;
  expect(first.displayTitle).toMatch(/ build #1$/);
  expect(await h.record(n)).not.toContain('✅');
  expect((await h.as('alice').rest.actions.deleteWorkflowRun({ ...o, run_id: first.id })).status).toBe(204);
  await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton status' });
  await h.settle();
  return { n, runId: first.id };
}

describe('app: worker runs that disappear or time out', () => {
  it('a deleted worker run found on `/baton status` is a failed attempt, retried', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow(1) }, agents: { build: [{ write: { 'a.txt': 'a\n' } }, { write: { 'a.txt': 'a\n' } }] } });
    const { n, runId } = await deletedFirstAttempt(h);
    // Read from its status comment: a finished run is not kept in the App's memory.
    const job = (await h.runState('build-1-1')).steps[0]!.jobs[0]!;
    expect(job).toMatchObject({ attempt: 2, failures: 1, status: 'succeeded' });
    expect(workerRuns(h).map((r) => r.displayTitle.replace(/^.* build /, ''))).toEqual(['#2']);
    expect(await h.record(n)).toMatch(/build \| done \| 2 \|/);
    expect(failedDeliveries(h)).toEqual([]);
    // The failure is told to the second attempt's agent, with the reason.
    expect(h.agentCalls().at(-1)!.prompt).toContain(`worker run ${runId} was deleted or expired`);
  });

  it('without retries the run ends, saying why in the thread', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow(0) }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
    const { n, runId } = await deletedFirstAttempt(h);
    const record = await h.record(n);
    expect(record).toContain(`worker run ${runId} was deleted or expired`);
    expect(record).toMatch(/failed/);
    expect(workerRuns(h)).toEqual([]);
    expect(failedDeliveries(h)).toEqual([]);
  });

  it('a deleted worker run found by the overdue lookup (any later event past the deadline) is a failed attempt', async () => {
    let clock = Date.now();
    const timed = workflow(0).replace('    retries: 0', '    retries: 0\n    timeout-minutes: 30');
    h = await startHarness({ files: { '.agents/workflows/build.yml': timed }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] }, now: () => clock });
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    const first = workerRuns(h)[0]!;
    await h.as('alice').rest.actions.deleteWorkflowRun({ ...o, run_id: first.id });
    clock += 31 * 60_000;
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton status' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`worker run ${first.id} was deleted or expired`);
    expect(record).not.toContain('ran out of time');
    expect(failedDeliveries(h)).toEqual([]);
  });

  it('a late workflow_run.completed of a deleted worker run is a failed attempt, not a failed delivery', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow(0) }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    const first = workerRuns(h)[0]!;
    await h.as('alice').rest.actions.deleteWorkflowRun({ ...o, run_id: first.id });
    const lost = h.emu.webhooks.deliveries.find((d) => d.dropped && d.event === 'workflow_run')!;
    await h.emu.webhooks.redeliver(lost.id);
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`worker run ${first.id} was deleted or expired`);
    expect(record).toMatch(/failed/);
    expect(failedDeliveries(h)).toEqual([]);
  });

  it("a worker job cancelled by GitHub at its timeout-minutes is an attempt that ran out of time, not a user's cancel", async () => {
    // A minute of the runner is 50 ms: the worker job's timeout-minutes of 60 is 3 s.
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow(0) }, agents: { build: [{ write: { 'a.txt': 'partial\n' }, hang: true }] }, minuteMs: 50 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    const [run] = workerRuns(h);
    expect(run!.conclusion).toBe('cancelled');
    const record = await h.record(n);
    expect(record).toContain('the worker ran out of time: its job `agent` ran past its timeout-minutes (60 minutes) and GitHub cancelled it');
    expect(record).not.toContain('cancelled outside baton');
    expect(failedDeliveries(h)).toEqual([]);
  });

  it('a worker run someone cancels is an attempt cancelled outside baton', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow(0) }, agents: { build: [{ hang: true }] } });
    const n = await openLabelled(h, 'baton:build');
    await h.waitFor('the agent at work', () => h!.agentCalls().length > 0);
    const [run] = workerRuns(h);
    await h.as('alice').rest.actions.cancelWorkflowRun({ ...o, run_id: run!.id });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`the worker job was cancelled outside baton: worker run ${run!.id} was cancelled`);
    expect(record).not.toContain('ran out of time');
    expect(failedDeliveries(h)).toEqual([]);
  });
});
