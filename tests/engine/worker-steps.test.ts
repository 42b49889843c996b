import { describe, expect, it } from 'vitest';
import { agent, run, workflow } from './builder.ts';
import { Run, T0 } from './harness.ts';
import { renderRecord } from '../../src/record/render.ts';

describe('needs ordering', () => {
  it('runs a step only after the step above it, from the head its merge produced', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.start();
    expect(r.dispatches().map((d) => d.step)).toEqual(['a']);
    expect(r.dispatch('a').base).toBe('base0');
    r.finish('a');
    expect(r.status('a')).toBe('running'); // waiting for its merge
    expect(r.dispatches().map((d) => d.step)).toEqual(['a']);
    r.merge();
    expect(r.status('a')).toBe('succeeded');
    expect(r.dispatch('b').base).toBe('head1');
  });

  it('starts steps with `needs: []` at once, in parallel', () => {
    const r = new Run(workflow([agent('a'), agent('b', { needs: [] }), agent('c', { needs: ['a', 'b'] })]));
    r.start();
    expect(r.dispatches().map((d) => d.step)).toEqual(['a', 'b']);
    r.complete('a');
    expect(r.dispatches().map((d) => d.step)).toEqual(['a', 'b']);
    r.complete('b');
    expect(r.dispatches().map((d) => d.step)).toEqual(['a', 'b', 'c']);
  });

  it('succeeds the run when every step is done and says so once', () => {
    const r = new Run(workflow([agent('a', { writes: false })]));
    r.start();
    r.finish('a', { ok: true });
    expect(r.state.status).toBe('succeeded');
    expect(r.step('a').outputs).toEqual({ ok: true });
    expect(r.of('finish-run')).toEqual([expect.objectContaining({ status: 'succeeded', reason: null })]);
    const aggregate = r.of('check-run').find((c) => c.name === 'baton / wf');
    expect(aggregate).toMatchObject({ status: 'completed', conclusion: 'success' });
  });
});

describe('if', () => {
  it('skips a step whose condition is false; it counts as done and its outputs are null', () => {
    const r = new Run(
      workflow(
        [
          agent('a', { if: "${{ inputs.scope == '' }}" }),
          agent('b', { prompt: 'status=${{ steps.a.status }} out=${{ steps.a.outputs }}' }),
        ],
        { inputs: { scope: { type: 'string', required: false, default: 'api' } } },
      ),
    );
    r.start();
    expect(r.status('a')).toBe('skipped');
    expect(r.step('a').outputs).toBeNull();
    expect(r.dispatch('b').prompt).toBe('status=skipped out=');
    expect(r.of('check-run', r.all).find((c) => c.name === 'baton / wf / a')).toMatchObject({ conclusion: 'skipped' });
    // The status comment says why, once: "skipped: `…` is false".
    expect(renderRecord(r.state, r.workflow)).toContain("| skipped: `${{ inputs.scope == '' }}` is false |");
  });

  it('reads typed outputs of earlier steps', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { if: '${{ steps.a.outputs.n > 2 }}' })]));
    r.start();
    r.finish('a', { n: 3 });
    expect(r.status('b')).toBe('running');
  });

  it('fails the step (and the run) on an expression error, naming it', () => {
    const r = new Run(workflow([agent('a', { if: '${{ inputs.x == }}' })]));
    r.start();
    expect(r.status('a')).toBe('failed');
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toMatch(/^step `a` failed: if: /);
    expect(r.dispatches()).toHaveLength(0);
  });
});

describe('for-each', () => {
  const wf = workflow([
    agent('plan', { writes: false }),
    agent('impl', { forEach: '${{ steps.plan.outputs.tasks }}', maxParallel: 2, prompt: 'Implement #${{ index }}: ${{ item }}' }),
  ]);

  it('fans out at most max-parallel jobs, each with its item, on its own branch', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: ['t0', 't1', 't2', 't3'] });
    const first = r.dispatches().filter((d) => d.step === 'impl');
    expect(first.map((d) => [d.index, d.item, d.prompt, d.branch, d.key])).toEqual([
      [0, 't0', 'Implement #0: <agent-output source="item">t0</agent-output>', 'baton/steps/r1/impl-0', 'r1/impl/0/1'],
      [1, 't1', 'Implement #1: <agent-output source="item">t1</agent-output>', 'baton/steps/r1/impl-1', 'r1/impl/1/1'],
    ]);
    r.finish('impl', null, { slot: '1' });
    // item 1 waits to merge; its runner is free, so item 2 starts
    expect(r.dispatches().filter((d) => d.step === 'impl').map((d) => d.index)).toEqual([0, 1, 2]);
  });

  it('keeps the items’ outputs in item order, whatever order they finish in', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: ['t0', 't1', 't2'] });
    r.complete('impl', 'out1', { slot: '1' });
    r.complete('impl', 'out0', { slot: '0' });
    expect(r.status('impl')).toBe('running');
    r.complete('impl', 'out2', { slot: '2' });
    expect(r.status('impl')).toBe('succeeded');
    expect(r.step('impl').outputs).toEqual(['out0', 'out1', 'out2']);
    expect(r.state.status).toBe('succeeded');
  });

  it('serialises merges into the run branch', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: ['t0', 't1'] });
    r.finish('impl', null, { slot: '0' });
    r.finish('impl', null, { slot: '1' });
    expect(r.of('merge-step-branch', r.all).map((m) => m.slot)).toEqual(['0']);
    r.merge();
    expect(r.of('merge-step-branch', r.all).map((m) => m.slot)).toEqual(['0', '1']);
  });

  it('succeeds at once over an empty list, with outputs []', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: [] });
    expect(r.status('impl')).toBe('succeeded');
    expect(r.step('impl').outputs).toEqual([]);
  });

  it('fails when for-each is not a list', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: 'oops' });
    expect(r.state.reason).toBe('step `impl` failed: for-each: expected an array, got string');
  });

  it('fails the step when one item fails for good, cancelling the others', () => {
    const r = new Run(wf);
    r.start();
    r.finish('plan', { tasks: ['t0', 't1'] });
    r.fail('impl', { slot: '1', error: 'segfault' });
    expect(r.state.reason).toBe('step `impl` failed: item 1 failed after 1 attempt: the worker crashed: segfault');
    expect(r.of('cancel-worker').map((c) => c.key)).toEqual(['r1/impl/0/1/cancel']);
  });
});

describe('retries, validation, timeouts', () => {
  it('retries a crashed attempt with the error, then fails the run naming step and cause', () => {
    const r = new Run(workflow([agent('a', { retries: 2 })]));
    r.start();
    r.fail('a', { error: 'oom' });
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, key: 'r1/a/0/2', previousError: 'the worker crashed: oom' });
    r.fail('a', { error: 'oom' });
    r.fail('a', { error: 'oom again' });
    expect(r.dispatches()).toHaveLength(3);
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe('step `a` failed: failed after 3 attempts: the worker crashed: oom again');
  });

  it('gives a plain step one check run per attempt, written once when the attempt ends, with the time it was dispatched', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    const stepChecks = () => r.of('check-run', r.all).filter((c) => c.name === 'baton / wf / a').map((c) => [c.externalId, c.status, c.conclusion, c.startedAt]);
    r.start();
    // At work: its worker's Actions job is the running check; the step writes none yet.
    expect(stepChecks()).toEqual([]);
    r.now += 5 * 60_000;
    r.fail('a');
    expect(stepChecks()).toEqual([['r1/a/1', 'completed', 'failure', T0]]);
    const second = T0 + 5 * 60_000;
    r.now += 7 * 60_000;
    r.complete('a');
    expect(stepChecks()).toEqual([
      ['r1/a/1', 'completed', 'failure', T0],
      ['r1/a/2', 'completed', 'success', second],
    ]);
  });

  it('writes a fanned-out step’s check run once, when its last item is done, from when the step began', () => {
    const r = new Run(workflow([agent('plan', { writes: false }), agent('impl', { forEach: '${{ steps.plan.outputs.tasks }}' })]));
    r.start();
    r.now += 60_000;
    r.finish('plan', { tasks: ['x', 'y'] });
    const begun = r.now;
    r.now += 60_000;
    r.complete('impl', null, { slot: '0' });
    expect(r.of('check-run', r.all).filter((c) => c.name === 'baton / wf / impl')).toEqual([]);
    r.complete('impl', null, { slot: '1' });
    const checks = r.of('check-run', r.all).filter((c) => c.name === 'baton / wf / impl');
    expect(checks.map((c) => [c.status, c.conclusion, c.title, c.startedAt])).toEqual([['completed', 'success', '2 items done', begun]]);
  });

  it('treats outputs that miss the schema as a failed attempt and re-prompts with the ajv error', () => {
    const schema = { type: 'object', required: ['tasks'], properties: { tasks: { type: 'array', items: { type: 'string' } } } };
    const r = new Run(workflow([agent('plan', { outputs: schema, retries: 1, writes: false })]));
    r.start();
    expect(r.dispatch('plan').outputsSchema).toEqual(schema);
    r.finish('plan', { task: 'x' });
    expect(r.dispatch('plan').attempt).toBe(2);
    expect(r.dispatch('plan').previousError).toBe(
      "the outputs do not match the step's schema: outputs must have required property 'tasks'",
    );
    r.finish('plan', { tasks: [1] });
    expect(r.state.reason).toMatch(/outputs\/tasks\/0 must be string/);
  });

  it('times out an attempt past timeout-minutes: cancels it and retries', () => {
    const r = new Run(workflow([agent('a', { timeoutMinutes: 10, retries: 1 })]));
    r.start();
    expect(r.dispatch('a').timeoutMinutes).toBe(10);
    r.pass(9);
    expect(r.last).toEqual([]);
    r.pass(1);
    expect(r.of('cancel-worker')).toEqual([expect.objectContaining({ step: 'a', attempt: 1 })]);
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, previousError: 'timed out after 10 minutes' });
    r.pass(10);
    expect(r.state.reason).toBe('step `a` failed: failed after 2 attempts: timed out after 10 minutes');
  });

  it('falls back to the agent’s timeout-minutes', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    expect(r.dispatch('a').timeoutMinutes).toBe(30);
  });

  it('continues from the checkpoint a timed-out worker left, saying so', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    r.fail('a', { reason: 'timed-out', error: 'job hit 60 minutes', checkpoint: 'cp1' });
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, base: 'cp1', resume: true, branch: 'baton/steps/r1/a' });
    expect(r.dispatch('a').previousError).toBe('the worker ran out of time: job hit 60 minutes');
  });

  it('retries a merge conflict on the new head, and fails naming the files when out of retries', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    r.finish('a');
    r.merge({ conflict: ['src/x.ts'] });
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, base: 'base0', resume: false });
    r.finish('a');
    r.merge({ conflict: ['src/x.ts', 'src/y.ts'] });
    expect(r.state.reason).toBe('step `a` failed: failed after 2 attempts: merge conflict with the run branch in src/x.ts, src/y.ts');
  });

  it('names the branch the host kept a conflicting commit on', () => {
    const r = new Run(workflow([agent('a', { retries: 0 })]));
    r.start();
    r.finish('a');
    r.merge({ conflict: ['src/x.ts'], keptOn: 'baton/steps/r1/a' });
    expect(r.state.reason).toBe("step `a` failed: failed after 1 attempt: merge conflict with the run branch in src/x.ts (the attempt's commit is on baton/steps/r1/a)");
  });

  it('fails the attempt of a merge the host refused, with its reason, and goes on', () => {
    const r = new Run(workflow([agent('a', { retries: 0 })]));
    r.start();
    r.finish('a');
    r.merge({ refused: 'GitHub refused to merge the step\'s commit into baton/r1 (422 Repository rule violations found)' });
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe("step `a` failed: refused after 1 attempt: GitHub refused to merge the step's commit into baton/r1 (422 Repository rule violations found)");
    expect(r.state.merging).toBeNull();
  });

  it('records a refused result as refused, not crashed: retried with the refusal in the re-prompt, each check titled so', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    const why = "the worker's result changes protected paths: .github/workflows/evil.yml (a GitHub Actions workflow)";
    r.fail('a', { reason: 'refused', error: why });
    // Refused for that result, not for the next: the agent is told what was refused and tries again.
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, previousError: why });
    expect(r.state.steps[0]!.jobs[0]).toMatchObject({ lastError: why, refused: true });
    const checks = () => r.of('check-run', r.all).filter((c) => c.name === 'baton / wf / a' && c.status === 'completed').map((c) => c.title);
    expect(checks()).toEqual(['attempt 1 refused']);
    r.fail('a', { reason: 'refused', error: why });
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe(`step \`a\` failed: refused after 2 attempts: ${why}`);
    expect(r.state.reason).not.toContain('crashed');
    expect(checks()).toEqual(['attempt 1 refused', `refused after 2 attempts: ${why}`]);
  });

  it('says "failed", not "refused", once a refused attempt is followed by one that crashed', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    r.fail('a', { reason: 'refused', error: 'no' });
    r.fail('a', { reason: 'crashed', error: 'boom' });
    expect(r.state.reason).toBe('step `a` failed: failed after 2 attempts: the worker crashed: boom');
  });

  it('ignores results of attempts that are no longer current', () => {
    const r = new Run(workflow([agent('a', { retries: 1, writes: false })]));
    r.start();
    r.fail('a');
    const before = r.state;
    r.send({ type: 'worker.finished', step: 'a', slot: '0', attempt: 1, outputs: 'late' });
    expect(r.last).toEqual([]);
    expect(r.state.steps).toEqual(before.steps);
  });
});

describe('worker commands', () => {
  it('carry everything a host needs for an agent step', () => {
    const r = new Run(workflow([agent('a', { env: { X: '1' }, prompt: 'Fix #${{ issue.number }}: ${{ issue.title }}' })]));
    r.start();
    expect(r.dispatch('a')).toEqual({
      type: 'dispatch-worker',
      runId: 'r1',
      key: 'r1/a/0/1',
      workflow: 'wf',
      step: 'a',
      slot: '0',
      index: null,
      item: null,
      attempt: 1,
      kind: 'agent',
      runName: 'baton r1 a #1',
      agent: 'coder',
      backend: { uses: 'claude-code', model: 'm', timeoutMinutes: 30, env: {} },
      prompt: 'Fix #42: <untrusted-data source="issue.title">Crash on save</untrusted-data>',
      command: null,
      outputsSchema: null,
      base: 'base0',
      runBase: 'c0',
      resume: false,
      branch: 'baton/steps/r1/a',
      writes: true,
      env: { X: '1' },
      timeoutMinutes: 30,
      previousError: null,
      feedback: null,
      sandbox: { network: { mode: 'allow', allow: ['api.anthropic.com'] }, limits: { cpuSeconds: 14_400, memoryMb: null, processes: 4096 }, required: false },
      costCap: null,
    });
    expect(r.of('create-run-branch', r.all)).toEqual([expect.objectContaining({ branch: 'baton/r1', sha: 'base0' })]);
  });

  it('render a run step’s command and do not branch or merge non-writing work', () => {
    const r = new Run(workflow([run('fmt', { run: 'npm run fmt -- ${{ inputs.path }}', writes: false })], { inputs: { path: { type: 'string', required: true } } }));
    r.start({ inputs: { path: 'src' } });
    expect(r.dispatch('fmt')).toMatchObject({ kind: 'run', command: 'npm run fmt -- src', prompt: null, branch: null, agent: null });
    r.finish('fmt', null, { commit: 'abc' });
    expect(r.of('merge-step-branch', r.all)).toEqual([]);
    expect(r.state.status).toBe('succeeded');
  });

  it('never silently green: a writing agent that reports success with no change fails its attempt, and the run says what is missing', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    r.finish('a', null, { commit: null });
    // Retried within `retries`, told why.
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, previousError: expect.stringContaining('without changing any file') });
    r.finish('a', null, { commit: null });
    expect(r.of('merge-step-branch', r.all)).toEqual([]);
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toContain('without changing any file');
    expect(r.state.reason).toContain('no-changes: succeed');
  });

  it('merge nothing when a writing worker changed nothing and the step allows it (`no-changes: succeed`)', () => {
    const r = new Run(workflow([agent('a', { noChanges: 'succeed' })]));
    r.start();
    r.finish('a', null, { commit: null });
    expect(r.of('merge-step-branch', r.all)).toEqual([]);
    expect(r.of('read-back', r.all)).toEqual([]);
    expect(r.state.status).toBe('succeeded');
  });

  it('a writing step is done only once its commit is read back on the run branch; a missing commit fails it, naming it', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.readBacks = 'manual';
    r.start();
    r.complete('a');
    const rb = r.readBack('a')!;
    expect(rb.deliverable).toEqual({ kind: 'commit', branch: 'baton/r1', head: r.state.head, from: 'base0' });
    expect(r.status('a')).toBe('running');
    expect(r.dispatches().filter((d) => d.step === 'b')).toEqual([]);
    r.read(rb, ['`heads/baton/r1` is at base0, which does not hold the step\'s commit']);
    expect(r.status('a')).toBe('failed');
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toMatch(/step `a` failed: reported done, but missing the step's commit .* on `baton\/r1`: `heads\/baton\/r1` is at base0/);
  });

  it("a writing `run` step that changes nothing succeeds: its deliverable is its exit status and outputs", () => {
    const r = new Run(workflow([run('fmt')]));
    r.start();
    r.finish('fmt', null, { commit: null });
    expect(r.state.status).toBe('succeeded');
  });

  it('a resumed attempt with nothing more to change delivers its checkpoint', () => {
    const r = new Run(workflow([agent('a', { retries: 1 })]));
    r.start();
    r.fail('a', { reason: 'timed-out', checkpoint: 'cp1' });
    r.finish('a', null, { commit: null });
    expect(r.of('merge-step-branch', r.all).at(-1)).toMatchObject({ commit: 'cp1' });
  });

  it('fail the step when its prompt cannot be rendered', () => {
    const r = new Run(workflow([agent('a', { prompt: '${{ nope( }}' })]));
    r.start();
    expect(r.state.reason).toMatch(/^step `a` failed: prompt: /);
  });

  it('record the workflow run link without a comment edit', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    r.send({ type: 'worker.dispatched', step: 'a', slot: '0', attempt: 1, workflowRunId: 77, url: 'https://x/77' });
    expect(r.step('a').jobs[0]).toMatchObject({ workflowRunId: 77, url: 'https://x/77' });
    expect(r.last).toEqual([]);
  });
});
