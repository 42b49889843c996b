// Worker jobs that go wrong: one that fails, one cancelled from the Actions tab, one whose
// completion never reaches the app, one that hangs past its deadline, and one whose output
// never validates. Each run ends as a user would expect and nothing is dispatched twice.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../app/harness.ts';
import { attempts, dispatches, expectFlowSucceeded, flowHarness, labelFlow, o } from './scenario.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const one = (agent: string, extra = '') => `name: one
on: { labels: ["baton:one"] }
agents: { coder: { uses: ${agent} } }
steps:
  - id: work
    agent: coder
    prompt: "Do the work"
${extra}`;

async function labelOne(h: Harness): Promise<{ number: number; runId: string }> {
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'One', body: '' })).data;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:one'] });
  return { number: issue.number, runId: `one-${issue.number}-1` };
}

const atWork = (h: Harness, n: number) => h.agentCalls().length >= n;

describe('reliability: worker jobs', () => {
  it('a worker job that fails (its agent cannot start) fails the step after its retry, saying why', async () => {
    h = await startHarness({ files: { '.agents/workflows/one.yml': one('gemini', '    retries: 1\n') } });
    const { number, runId } = await labelOne(h);
    await h.settle();
    const record = await h.record(number);
    expect(record).toContain(`run \`${runId}\` — failed`);
    expect(record).toMatch(/\| ❌ \| work \|.*`gemini` is not on PATH/);
    expect([...h.runner.store.runs.values()].map((r) => [r.displayTitle, r.conclusion])).toEqual([
      [`baton ${runId} work #1`, 'failure'],
      [`baton ${runId} work #2`, 'failure'],
    ]);
    expect(dispatches(h)).toBe(2);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a worker run cancelled in the Actions tab is retried, and the run succeeds', async () => {
    h = await startHarness({ files: { '.agents/workflows/one.yml': one('claude-code', '    retries: 1\n') }, agents: { work: [{ hang: true }, { write: { 'done.txt': 'done\n' } }] } });
    const { number, runId } = await labelOne(h);
    await h.waitFor('the agent to be at work', () => atWork(h!, 1));
    const first = [...h.runner.store.runs.values()][0]!;
    await h.as('alice').rest.actions.cancelWorkflowRun({ ...o, run_id: first.id });
    await h.settle();
    const record = await h.record(number);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect([...h.runner.store.runs.values()].map((r) => [r.displayTitle, r.conclusion])).toEqual([
      [`baton ${runId} work #1`, 'cancelled'],
      [`baton ${runId} work #2`, 'success'],
    ]);
    expect(dispatches(h)).toBe(2);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a worker whose completion never reaches the app: the next event (`/baton status`) looks it up and the run goes on', async () => {
    h = await flowHarness();
    // The plan job's workflow_run.completed is lost on its way.
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(await h.record(number)).toMatch(/\| 🔄 \| plan \|/);
    expect(attempts(h)).toEqual([`baton ${runId} plan #1`]);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton status' });
    await h.settle();
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);

  it('a worker that hangs and never reports is timed out once its deadline passed (time told by a later event), then retried', async () => {
    let skew = 0;
    h = await startHarness({
      files: { '.agents/workflows/one.yml': one('claude-code', '    retries: 1\n    timeout-minutes: 30\n') },
      agents: { work: [{ hang: true }, { write: { 'done.txt': 'done\n' } }] },
      now: () => Date.now() + skew,
    });
    const { number, runId } = await labelOne(h);
    await h.waitFor('the agent to be at work', () => atWork(h!, 1));
    await h.app.runs.idle();
    skew = 31 * 60_000; // half an hour later, still nothing from the worker
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton status' });
    await h.settle();
    const record = await h.record(number);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| work \|[^|]*\| 2 \|/);
    expect([...h.runner.store.runs.values()].map((r) => [r.displayTitle, r.conclusion])).toEqual([
      [`baton ${runId} work #1`, 'cancelled'],
      [`baton ${runId} work #2`, 'success'],
    ]);
    expect(dispatches(h)).toBe(2);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a worker whose output never validates: re-prompted with the error, then the step fails with the validation error shown', async () => {
    const schema = '    outputs: { type: object, required: [summary], properties: { summary: { type: string } } }\n';
    h = await startHarness({ files: { '.agents/workflows/one.yml': one('claude-code', schema) }, agents: { work: [{ reply: { summary: 42 } }] } });
    const { number, runId } = await labelOne(h);
    await h.settle();
    const record = await h.record(number);
    expect(record).toContain(`run \`${runId}\` — failed`);
    expect(record).toMatch(/\| ❌ \| work \|.*the result does not match the step's outputs schema: - `\/summary` must be/);
    // The whole error is on the step's check run.
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const check = (await h.as('alice').rest.checks.listForRef({ ...o, ref: head })).data.check_runs.find((c) => c.name === 'baton / one / work');
    expect(check?.conclusion).toBe('failure');
    expect(`${check?.output.title} ${check?.output.summary}`).toMatch(/\/summary` must be string/);
    const calls = h.agentCalls();
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.at(-1)!.prompt).toMatch(/summary.*string/);
    expect(dispatches(h)).toBe(1);
    h.emu.assertNoViolations();
  }, 60_000);
});
