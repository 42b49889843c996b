// The App's sweep: runs whose only pending thing is a deadline move with no event at all.
// The clock is the app's (`now`), moved forward by the test; most tests call one sweep
// directly (`app.sweep()`, what the timer runs), one lets the timer fire.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, type Harness, openLabelled, startHarness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});


const HUNG = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
    retries: 1
    timeout-minutes: 30
`;

const ASK = (extra: string) => `name: asky
on: { labels: ["baton:ask"] }
${extra}steps:
  - id: ask
    ask: { questions: ["Which colour?"]${extra ? '' : ', timeout-hours: 1'} }
  - id: after
    run: echo done > after.txt
`;

const workerRuns = (h: Harness) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml'));

describe('app: the sweep moves runs that hear no event', () => {
  it('times out a worker that never reports and retries it, with no other event arriving', async () => {
    let clock = Date.now();
    h = await startHarness({ files: { '.agents/workflows/build.yml': HUNG }, agents: { build: [{ hang: true }, { write: { 'a.txt': 'a\n' } }] }, now: () => clock });
    const n = await openLabelled(h, 'baton:build');
    await h.waitFor('the agent at work', () => h!.agentCalls().length > 0);
    await h.app.runs.idle();
    // Within the deadline a sweep changes nothing; nothing else happens until the next one.
    clock += 29 * 60_000;
    await h.app.sweep();
    expect(h.app.runs.memories.get(o.owner, o.repo, 'build-1-1')!.state.steps[0]!.jobs[0]).toMatchObject({ attempt: 1, status: 'running' });
    clock += 2 * 60_000;
    await h.app.sweep();
    // Read from its status comment: the second attempt may already have finished the run, which the App then no longer holds.
    const job = (await h.runState('build-1-1')).steps[0]!.jobs[0]!;
    expect(job).toMatchObject({ attempt: 2, failures: 1, lastError: expect.stringContaining('timed out after 30 minutes') });
    await h.settle();
    expect(workerRuns(h).map((r) => `${r.displayTitle.replace(/^.* build /, '')} ${r.conclusion}`)).toEqual(['#1 cancelled', '#2 success']);
    expect(await h.record(n)).toMatch(/build \| done \| 2 \|/);
  });

  it('ends a run whose budget.max-minutes are up, with no event', async () => {
    let clock = Date.now();
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK('budget: { max-minutes: 10 }\n') }, now: () => clock });
    const n = await openLabelled(h, 'baton:ask');
    await h.settle();
    expect(await h.record(n)).not.toContain('max-minutes');
    clock += 11 * 60_000;
    await h.app.sweep();
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain('budget: max-minutes 10 reached');
    expect((await h.runState('asky-1-1')).status).not.toBe('running');
  });

  it('moves an ask step on at its timeout, with no event', async () => {
    let clock = Date.now();
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK('') }, now: () => clock });
    const n = await openLabelled(h, 'baton:ask');
    await h.settle();
    clock += 61 * 60_000;
    await h.app.sweep();
    await h.settle();
    expect(await h.record(n)).toContain('no answer within 1 hours');
    // Said in the thread as a comment of its own, to the person who started the run: an edit of the
    // status comment notifies nobody. Once: later sweeps say nothing more.
    const said = () => h!.comments(n).then((all) => all.filter((b) => b.startsWith('⏰')));
    expect(await said()).toEqual([expect.stringContaining('⏰ @alice, step `ask` of run `asky-1-1` waited past its deadline: no answer within 1 hours. The run failed. `/baton retry ask` waits again.')]);
    clock += 61 * 60_000;
    await h.app.sweep();
    await h.settle();
    expect(await said()).toHaveLength(1);
  });

  it('collects, after a restart, a worker run that finished while its webhook was lost', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': HUNG }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    expect(workerRuns(h).map((r) => r.conclusion)).toEqual(['success']);
    expect(await h.record(n)).not.toMatch(/build \| done/);
    // A fresh process: nothing in memory, no delivery to redeliver.
    await h.restart();
    await h.app.sweep();
    await h.settle();
    expect(await h.record(n)).toMatch(/build \| done \| 1 \|/);
    expect(workerRuns(h)).toHaveLength(1);
  });

  it('collects a worker run whose webhook was lost while the process ran on (its memory is not trusted for that)', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': HUNG }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    expect(await h.record(n)).not.toMatch(/build \| done/);
    await h.app.sweep();
    await h.settle();
    expect(await h.record(n)).toMatch(/build \| done \| 1 \|/);
  });

  it('keeps sweeping a finished run that `/baton retry` reopened', async () => {
    let clock = Date.now();
    const once = HUNG.replace('    retries: 1\n', '');
    h = await startHarness({ files: { '.agents/workflows/build.yml': once }, agents: { build: [{ exit: 1 }, { hang: true }] }, now: () => clock });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    expect(await h.record(n)).toContain('failed');
    await h.app.sweep(); // seen finished
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry build' });
    await h.waitFor('the second attempt at work', () => h!.agentCalls().length > 1);
    await h.app.runs.idle();
    clock += 31 * 60_000;
    await h.app.sweep();
    await h.settle();
    expect(await h.record(n)).toContain('timed out after 30 minutes');
    expect(workerRuns(h).map((r) => r.conclusion)).toEqual(['success', 'cancelled']);
  });

  it('costs 5 requests per sweep for a run waiting on people, 6 for one waiting on a worker (one installation, one repository)', async () => {
    let clock = Date.now();
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK(''), '.agents/workflows/build.yml': HUNG }, agents: { build: [{ hang: true }, { write: { 'a.txt': 'a\n' } }] }, now: () => clock });
    await openLabelled(h, 'baton:ask');
    await h.settle();
    await h.app.sweep(); // the installation token is minted once, then cached
    let from = appRequests(h.emu).length;
    await h.app.sweep();
    const routes = (since: number) => appRequests(h!.emu).slice(since).map((r) => r.route);
    // The default branch's head (schedules: no workflow has one, so nothing more), run branches,
    // then claims (a run going on with a few claims has its thread left unread).
    expect(routes(from)).toEqual(['GET /app/installations', 'GET /installation/repositories', 'GET /repos/{owner}/{repo}/git/ref/{ref}', 'GET /repos/{owner}/{repo}/git/matching-refs/{ref}', 'GET /repos/{owner}/{repo}/git/matching-refs/{ref}']);
    await openLabelled(h, 'baton:build');
    await h.waitFor('the agent at work', () => h!.agentCalls().length > 0);
    await h.app.runs.idle();
    from = appRequests(h.emu).length;
    clock += 60_000;
    await h.app.sweep();
    expect(routes(from)).toEqual([
      'GET /app/installations',
      'GET /installation/repositories',
      'GET /repos/{owner}/{repo}/git/ref/{ref}',
      'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
      'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
    ]);
    // The hung worker is stopped before the harness closes (its webhooks must find the app).
    await h.as('alice').rest.actions.cancelWorkflowRun({ ...o, run_id: workerRuns(h)[0]!.id });
    await h.settle();
  });

  it('sweeps on its timer (the production interval, scaled like every wait)', async () => {
    let clock = Date.now();
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK('') }, now: () => clock, sweepTimer: true });
    const n = await openLabelled(h, 'baton:ask');
    await h.settle();
    const sweeps = h.app.sweeps;
    clock += 61 * 60_000;
    await h.waitFor('the sweep to end the ask step', async () => (await h!.record(n)).includes('no answer within 1 hours'));
    // No event came: a sweep ended it, within one interval of the deadline — the one under way when
    // the clock moved (counted before), or at most the next two to start.
    expect(h.app.sweeps - sweeps).toBeLessThanOrEqual(2);
  });
});
