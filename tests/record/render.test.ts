// The status comment as a person reads it, and the hidden state the next event trusts.
import { describe, expect, it } from 'vitest';
import { loadWorkflowFile, LIBRARY_DIR } from '../../src/manifest/load.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { MAX_COMMENT_CHARS, RecordTooLargeError, renderRecord } from '../../src/record/render.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { agent, ask, run as step, workflow } from '../engine/builder.ts';
import { Run } from '../engine/harness.ts';

function libraryWorkflow(name: string): Workflow {
  const r = loadWorkflowFile(`${LIBRARY_DIR}/${name}.yml`);
  if (!r.loaded) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.loaded.workflow;
}

describe('status comment', () => {
  const wf = libraryWorkflow('fix-issue');

  it('tells the story of a running run: checklist, open questions, diagram, budget', () => {
    const run = new Run(wf);
    run.start();
    const body = renderRecord(run.state, wf);
    expect(body.split('\n')[1]).toBe('### 🏃 baton · fix-issue · run `r1` — running (0 of 6 steps done)');
    expect(body).toContain('| ❓ | Clarify the scope | waiting for answers (0 of 2) |');
    expect(body).toContain('1. Which part of the code should the fix for issue #42 touch?');
    expect(body).toMatch(/\| ⏸️ \| [^|]+ \| waiting for clarify \|/);
    expect(body).toContain('**Open questions**');
    expect(body).toContain('```mermaid\nflowchart LR');
    expect(body).toContain('class s_clarify waiting');
    expect(body).toMatch(/Budget: 0 of \d+ steps · 0s of .* · \$0\.00 of \$\d+\.00 · branch `baton\/r1`/);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
  });

  it('marks a cost estimated from token counts (codex reports none) as an estimate, and keeps the mark in the state', () => {
    const run = new Run(wf);
    run.start();
    const state = { ...run.state, budget: { ...run.state.budget, costUsd: 1.8, costEstimated: true } };
    const body = renderRecord(state, wf);
    expect(body).toMatch(/\$1\.80 of \$\d+\.00 \(estimated in part from token counts\) · branch/);
    expect(readStateBlock(body)).toEqual({ ok: true, state, gen: 0 });
    expect(renderRecord(run.state, wf)).not.toContain('estimated');
  });

  it('carries the exact state in a hidden block that reads back', () => {
    const run = new Run(wf);
    run.start();
    const back = readStateBlock(renderRecord(run.state, wf));
    expect(back).toEqual({ ok: true, state: run.state, gen: 0 });
  });

  it('refuses a state block whose content was edited', () => {
    const run = new Run(wf);
    run.start();
    const body = renderRecord(run.state, wf);
    const tampered = body.replace(/(z1:[A-Za-z0-9+/]{10})([A-Za-z0-9+/])/, (_, a: string, b: string) => a + (b === 'A' ? 'B' : 'A'));
    expect(tampered).not.toBe(body);
    expect(readStateBlock(tampered)).toEqual({ ok: false, problem: 'state block hash does not match its content (the comment was edited)' });
  });

  it('with a secret, only a block signed with that secret is trusted', () => {
    const run = new Run(wf);
    run.start();
    const signed = renderRecord(run.state, wf, { secret: 's3cret' });
    expect(readStateBlock(signed, 's3cret').ok).toBe(true);
    expect(readStateBlock(signed, 'other')).toMatchObject({ ok: false, problem: expect.stringContaining('does not match') });
    expect(readStateBlock(renderRecord(run.state, wf), 's3cret')).toMatchObject({ ok: false, problem: expect.stringContaining('signed with sha256') });
  });

  it('stays within GitHub\'s comment limit for a 200-step run', () => {
    const big = workflow(Array.from({ length: 200 }, (_, i) => step(`s${i}`, { name: `Step number ${i} with a descriptive name`, run: 'make' })), { name: 'big', budget: { maxSteps: 1000 } });
    const run = new Run(big);
    run.start();
    for (let i = 0; i < 200; i++) run.complete(`s${i}`, { note: 'x'.repeat(40) });
    const body = renderRecord(run.state, big);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(body).toContain('succeeded (200 of 200 steps done)');
    expect(readStateBlock(body)).toEqual({ ok: true, state: run.state, gen: 0 });
  });

  it('says clearly when outputs are too large to keep in the comment', () => {
    const wf1: Workflow = {
      name: 'huge',
      on: { labels: [], commands: ['huge'], roles: ['admin'], bots: [] },
      inputs: {},
      agents: {},
      budget: {},
      steps: [{ id: 'a', name: 'a', kind: 'run', run: 'make', needs: [], retries: 0, writes: false, env: {} }],
    };
    const run = new Run(wf1);
    run.start();
    // Random text does not compress: 100k of it cannot fit in 65k characters.
    let seed = 7;
    const noise = Array.from({ length: 100_000 }, () => String.fromCharCode(33 + ((seed = (seed * 48271) % 2147483647) % 90))).join('');
    run.complete('a', { log: noise });
    expect(() => renderRecord(run.state, wf1)).toThrow(RecordTooLargeError);
  });
});

describe('status comment rows', () => {
  it('says who approved an approve step', () => {
    const wf: Workflow = {
      name: 'gated',
      on: { labels: [], commands: ['gated'], roles: ['write'], bots: [] },
      inputs: {},
      agents: {},
      budget: {},
      steps: [{ id: 'gate', name: 'Gate', kind: 'approve', roles: ['write'], message: 'Ship it?', needs: [], retries: 0, writes: false, env: {} }],
    };
    const run = new Run(wf);
    run.start();
    expect(renderRecord(run.state, wf)).toContain('| 🔄 | Gate | Ship it? |');
    run.send({ type: 'approval.given', actor: 'root', permission: 'admin' });
    expect(renderRecord(run.state, wf)).toContain('| ✅ | Gate | approved by @root |');
  });
});

describe('status comment costs', () => {
  it('shows each step\'s cost: as reported, ≈ when estimated, — when the backend reports none, blank without a worker', () => {
    const wf = workflow(
      [
        agent('plan', { writes: false, retries: 1 }),
        agent('guess', { agent: 'estimator', writes: false }),
        agent('pair', { agent: 'copilot', writes: false }),
        step('build', { writes: false }),
        ask('clarify'),
      ],
      {
        agents: {
          coder: { uses: 'claude-code', model: 'm', timeoutMinutes: 30, env: {} },
          estimator: { uses: 'codex', env: {} },
          copilot: { uses: 'copilot', env: {} },
        },
      },
    );
    const run = new Run(wf);
    run.start();
    const attempt = (id: string) => run.dispatch(id).attempt;
    // A failed attempt's money is spent too: the retry adds to it.
    run.send({ type: 'worker.failed', step: 'plan', slot: '0', attempt: attempt('plan'), reason: 'crashed', error: 'boom', checkpoint: null, usage: { costUsd: 0.05 } });
    run.send({ type: 'worker.finished', step: 'plan', slot: '0', attempt: attempt('plan'), outputs: null, commit: null, usage: { costUsd: 0.07 } });
    run.send({ type: 'worker.finished', step: 'guess', slot: '0', attempt: attempt('guess'), outputs: null, commit: null, usage: { costUsd: 0.4, costEstimated: true, inputTokens: 1000 } });
    run.send({ type: 'worker.finished', step: 'pair', slot: '0', attempt: attempt('pair'), outputs: null, commit: null, usage: {} });
    run.send({ type: 'worker.finished', step: 'build', slot: '0', attempt: attempt('build'), outputs: null, commit: null });
    const body = renderRecord(run.state, wf);
    expect(body).toContain('| | step | status | attempt | time | cost | links |');
    expect(body).toMatch(/\| plan \| done \| 2 \| [^|]* \| \$0\.12 \|/);
    expect(body).toMatch(/\| guess \| done \| 1 \| [^|]* \| ≈ \$0\.40 \|/);
    expect(body).toMatch(/\| pair \| done \| 1 \| [^|]* \| — \|/);
    expect(body).toMatch(/\| build \| done \| 1 \| [^|]* \| — \|/);
    expect(body).toMatch(/\| clarify \| waiting for answers \(0 of 1\) \| {2}\| [^|]* \| {2}\|/);
    expect(body).toMatch(/Budget: 5 steps · [^·]+ · \$0\.52 \(estimated in part from token counts\)/);
    // The costs live in the state the next event continues from.
    expect(readStateBlock(body)).toEqual({ ok: true, state: run.state, gen: 0 });
  });
});
