// The job summary of a worker attempt says when its cost is an estimate (codex reports
// tokens only; baton prices them) rather than a figure the CLI reported.
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../src/action/summary.ts';
import { RESULT_VERSION, type WorkerResult } from '../../src/agents/result.ts';
import { makeTask } from '../agents/helpers.ts';

const result = (usage: WorkerResult['usage']): WorkerResult => ({
  version: RESULT_VERSION,
  run: 'fix-issue-42-1',
  step: 'implement',
  slot: '0',
  attempt: 1,
  status: 'succeeded',
  outputs: null,
  error: null,
  usage,
  base: 'a'.repeat(40),
  changes: [],
  backend: 'codex',
  durationMs: 1000,
});

describe('worker job summary', () => {
  it('marks an estimated cost, and only that', () => {
    const task = makeTask({ backend: { uses: 'codex', env: {} } });
    expect(renderSummary(task, result({ costUsd: 1.8, costEstimated: true, inputTokens: 10, outputTokens: 1 }), 'p', [])).toContain('$1.8000 (estimated from token counts)');
    expect(renderSummary(task, result({ costUsd: 0.42 }), 'p', [])).not.toContain('estimated');
  });

  it('says when the agent is a fallback standing in for the step\'s own', () => {
    const task = makeTask({ agent: 'backup', backend: { uses: 'codex', env: {} }, fallbackFor: 'coder' });
    expect(renderSummary(task, result({}), 'p', [])).toContain('agent `backup` (codex), standing in for `coder`');
    expect(renderSummary(makeTask({ backend: { uses: 'codex', env: {} } }), result({}), 'p', [])).not.toContain('standing in');
  });
});
