import { describe, expect, it } from 'vitest';
import { decide } from '../../src/engine/decide.ts';
import { agent, workflow } from './builder.ts';
import { Run } from './harness.ts';

describe('starting a run', () => {
  const wf = workflow([agent('a', { prompt: '${{ inputs.n }} ${{ inputs.dry }} ${{ inputs.scope }}' })], {
    inputs: {
      n: { type: 'number', required: true },
      dry: { type: 'boolean', required: false, default: false },
      scope: { type: 'choice', required: false, options: ['api', 'ui'], default: 'api' },
    },
  });

  it('types the inputs from `key=value` words and applies defaults', () => {
    const r = new Run(wf);
    r.start({ inputs: { n: '3', dry: 'true' } });
    expect(r.state.inputs).toEqual({ n: 3, dry: true, scope: 'api' });
    expect(r.dispatch('a').prompt).toBe('3 true api');
    expect(r.state).toMatchObject({ status: 'running', runBranch: 'baton/r1', head: 'base0', startedBy: 'alice', manifestHash: 'hash-1' });
  });

  it('refuses someone without the role: nothing runs, the reply names the role', () => {
    const r = new Run(wf);
    const out = r.start({ permission: 'triage', actor: 'zed', inputs: { n: '1' } });
    expect(r.state.status).toBe('idle');
    expect(out).toEqual([
      expect.objectContaining({ type: 'reply', body: '@zed, starting `wf` needs `write` permission (or higher); yours is `triage`. Nothing was run.' }),
    ]);
  });

  it('answers bad inputs with what is wrong and the usage', () => {
    const r = new Run(wf);
    const out = r.start({ inputs: { n: 'many', scope: 'db', color: 'red' } });
    expect(r.state.status).toBe('idle');
    const body = r.of('reply', out)[0]!.body;
    expect(body).toContain('unknown input `color`');
    expect(body).toContain('input `n` must be a number, got `many`');
    expect(body).toContain('input `scope` must be one of `api`, `ui`, got `db`');
    expect(body).toContain('- `n` (number, required)');
  });

  it('says a scheduled start its inputs refuse without mentioning anyone (`schedule` is a login on GitHub)', () => {
    const r = new Run(wf);
    const out = r.send({ type: 'run.requested', runId: 'r1', workflow: 'wf', manifestHash: 'hash-1', manifestCommit: 'c0', inputs: {}, thread: { kind: 'issue', number: 42 }, actor: 'schedule', permission: 'none', trigger: 'schedule', baseBranch: 'main', baseSha: 'base0' });
    expect(r.state.status).toBe('idle');
    const body = r.of('reply', out)[0]!.body;
    expect(body).toMatch(/^`wf` was not started:\n- input `n` is required/);
    expect(body).not.toContain('@');
  });

  it('ignores a second start of the same run', () => {
    const r = new Run(wf);
    r.start({ inputs: { n: 1 } });
    const before = r.state;
    expect(r.start({ inputs: { n: 2 } })).toEqual([]);
    expect(r.state.inputs).toEqual(before.inputs);
  });
});

describe('idempotency', () => {
  it('applies a redelivered event once: same state, no commands', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.start();
    r.finish('a');
    const event = r.events.at(-1)!;
    const again = decide(r.state, event, r.workflow);
    expect(again.state).toBe(r.state);
    expect(again.commands).toEqual([]);
  });

  it('remembers a bounded number of keys', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    for (let i = 0; i < 600; i++) r.send({ type: 'time.passed' });
    expect(r.state.appliedKeys).toHaveLength(500);
    expect(r.state.appliedKeys.at(-1)).toBe(r.events.at(-1)!.key);
  });

  it("applies a comment's event once for good: at or below the run's comment mark it is a duplicate, however many keys came since", () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    r.fail('a');
    r.send({ type: 'retry.requested', step: 'a', actor: 'alice', permission: 'admin', commentsUpTo: 40 });
    expect(r.state.commentsUpTo).toBe(40);
    r.fail('a');
    for (let i = 0; i < 600; i++) r.send({ type: 'time.passed' });
    // The same comment again (its key long forgotten), and an older one: both settled already.
    for (const mark of [40, 39]) {
      const again = decide(r.state, { type: 'retry.requested', key: `comment:${mark}`, at: 1, step: 'a', actor: 'alice', permission: 'admin', commentsUpTo: mark }, r.workflow);
      expect(again.state).toBe(r.state);
    }
    r.send({ type: 'retry.requested', step: 'a', actor: 'alice', permission: 'admin', commentsUpTo: 41 });
    expect(r.status('a')).toBe('running');
    expect(r.state.commentsUpTo).toBe(41);
  });

  it('asks for at most one record render per event, and none when nothing visible changed', () => {
    const r = new Run(workflow([agent('a', { forEach: '${{ fromJSON(\'[1,2,3]\') }}' })]));
    const out = r.start();
    expect(r.of('render-record', out)).toHaveLength(1);
    expect(r.of('render-record', r.pass(1))).toHaveLength(0);
    r.send({ type: 'worker.dispatched', step: 'a', slot: '0', attempt: 1, url: 'u' });
    expect(r.of('render-record')).toHaveLength(0);
  });
});

describe('cancel', () => {
  it('cancels running workers and ends the run as cancelled', () => {
    const r = new Run(workflow([agent('a'), agent('b', { needs: [] })]));
    r.start();
    r.send({ type: 'worker.dispatched', step: 'a', slot: '0', attempt: 1, workflowRunId: 5 });
    r.send({ type: 'cancel.requested', actor: 'alice', permission: 'write' });
    expect(r.of('cancel-worker').map((c) => [c.step, c.workflowRunId, c.runName])).toEqual([
      ['a', 5, 'baton r1 a #1'],
      ['b', null, 'baton r1 b #1'],
    ]);
    expect(r.state).toMatchObject({ status: 'cancelled', reason: 'cancelled by @alice' });
    expect(r.status('a')).toBe('cancelled');
    expect(r.of('finish-run')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(r.of('check-run').find((c) => c.name === 'baton / wf')).toMatchObject({ conclusion: 'cancelled' });
  });

  it('refuses a cancel from someone without the role', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    r.send({ type: 'cancel.requested', actor: 'eve', permission: 'read' });
    expect(r.state.status).toBe('running');
    expect(r.of('reply')[0]!.body).toContain('cancelling this run needs `write` permission');
  });

  it('a newer run supersedes this one: cancelled with the reason, whoever caused it, and a run already ended is left without a word', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    r.send({ type: 'worker.dispatched', step: 'a', slot: '0', attempt: 1, workflowRunId: 5 });
    const head = 'abcdef0123456789abcdef0123456789abcdef01';
    r.send({ type: 'cancel.requested', actor: 'dependabot[bot]', permission: 'none', supersededBy: { runId: 'wf-7-2', head } });
    expect(r.state).toMatchObject({ status: 'cancelled', reason: 'superseded by `wf-7-2` for head abcdef0' });
    expect(r.of('cancel-worker').map((c) => c.workflowRunId)).toEqual([5]);
    r.send({ type: 'cancel.requested', actor: 'dependabot[bot]', permission: 'none', supersededBy: { runId: 'wf-7-3', head } });
    expect(r.state.reason).toBe('superseded by `wf-7-2` for head abcdef0');
    expect(r.of('reply')).toEqual([]);
  });

  it('keeps a finished run finished: later events change nothing and dispatch nothing', () => {
    const r = new Run(workflow([agent('a', { retries: 3 })]));
    r.start();
    r.send({ type: 'cancel.requested', actor: 'alice', permission: 'admin' });
    r.fail('a');
    r.pass(100);
    r.send({ type: 'cancel.requested', actor: 'alice', permission: 'admin' });
    expect(r.state.status).toBe('cancelled');
    expect(r.dispatches()).toHaveLength(1);
    expect(r.of('reply')[0]!.body).toBe('Run `r1` is already cancelled.');
  });

  it('still records a merge that was in flight when the run ended', () => {
    const r = new Run(workflow([agent('a'), agent('b', { needs: [] })]));
    r.start();
    r.finish('a');
    r.send({ type: 'cancel.requested', actor: 'alice', permission: 'admin' });
    r.merge();
    expect(r.state.head).toBe('head1');
    expect(r.state.status).toBe('cancelled');
  });
});

describe('/baton retry', () => {
  it('re-opens a failed step and what depends on it; attempt numbers keep counting', () => {
    const r = new Run(workflow([agent('a'), agent('b'), agent('c')]));
    r.start();
    r.complete('a');
    r.fail('b');
    expect(r.state.status).toBe('failed');
    r.send({ type: 'retry.requested', step: 'b', actor: 'alice', permission: 'write' });
    expect(r.state.status).toBe('running');
    expect(r.status('a')).toBe('succeeded');
    expect(r.dispatch('b')).toMatchObject({ attempt: 2, key: 'r1/b/0/2', base: 'head1' });
    r.complete('b');
    r.complete('c');
    expect(r.state.status).toBe('succeeded');
  });

  it('re-opens a succeeded step and its dependents in a finished run', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })]));
    r.start();
    r.finish('a', 1);
    r.finish('b', 2);
    r.send({ type: 'retry.requested', step: 'a', actor: 'alice', permission: 'write' });
    expect(r.status('a')).toBe('running');
    expect(r.status('b')).toBe('waiting');
    expect(r.step('b').outputs).toBeNull();
  });

  it('re-opens the steps the failure interrupted', () => {
    const r = new Run(workflow([agent('a'), agent('b', { needs: [] })]));
    r.start();
    r.fail('a');
    expect(r.status('b')).toBe('cancelled');
    r.send({ type: 'retry.requested', step: 'a', actor: 'alice', permission: 'write' });
    expect(r.dispatches().map((d) => d.key)).toEqual(['r1/a/0/1', 'r1/b/0/1', 'r1/a/0/2', 'r1/b/0/2']);
  });

  it('refuses a retry from someone without the workflow\'s role: nothing re-runs, the reply names the role', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.start();
    r.complete('a');
    r.fail('b');
    for (const permission of ['read', 'triage', 'none'] as const) {
      r.send({ type: 'retry.requested', step: 'b', actor: 'eve', permission });
      expect(r.of('reply')[0]!.body).toBe(`@eve, retrying a step needs \`write\` permission (or higher); yours is \`${permission}\`.`);
    }
    expect(r.state.status).toBe('failed');
    expect(r.dispatches().map((d) => d.key)).toEqual(['r1/a/0/1', 'r1/b/0/1']);
  });

  it('refuses to retry a step that has not finished, or that does not exist', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.start();
    r.send({ type: 'retry.requested', step: 'a', actor: 'alice', permission: 'write' });
    expect(r.of('reply')[0]!.body).toBe('Step `a` is running; only a finished step can be retried.');
    r.send({ type: 'retry.requested', step: 'zzz', actor: 'alice', permission: 'write' });
    expect(r.of('reply')[0]!.body).toBe('There is no step `zzz` in `wf`.');
    expect(r.dispatches()).toHaveLength(1);
  });
});
