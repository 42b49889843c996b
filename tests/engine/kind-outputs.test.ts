// The validator checks `steps.<id>.outputs.<key>` against the keys each step kind offers;
// this holds that list to what the engine really produces, kind by kind.
import { describe, expect, it } from 'vitest';
import { KIND_OUTPUTS } from '../../src/manifest/semantic.ts';
import { agent, approve, ask, checks, label, pullRequest, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

function keysOf(r: Run, step: string): string[] {
  return Object.keys(r.step(step).outputs as object).sort();
}

describe('outputs of each step kind', () => {
  it('are the keys the validator knows', () => {
    const r = new Run(
      workflow([
        ask('clarify', { questions: ['Which?'] }),
        agent('impl'),
        pullRequest('pr'),
        review('rev', { fix: 'impl' }),
        checks('ci', { names: ['test'] }),
        approve('gate', { roles: ['write'] }),
        label('tag', { add: ['bug'] }),
      ]),
    );
    r.start();
    r.send({ type: 'questions.answered', actor: 'alice', permission: 'admin', answers: ['that'] });
    r.complete('impl');
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 3, url: 'https://x/pull/3' });
    r.finish('rev', { approved: true, summary: 'ok', comments: [] });
    r.send({ type: 'review.submitted', actor: 'bob', permission: 'admin', state: 'approved', body: 'fine', comments: [] });
    r.send({ type: 'checks.reported', sha: r.state.head, checks: [{ name: 'test', conclusion: 'success' }] });
    r.send({ type: 'approval.given', actor: 'root', permission: 'admin' });
    r.send({ type: 'labels.applied', step: 'tag', applied: ['bug'], unknown: [] });
    expect(r.state.status).toBe('succeeded');
    for (const [step, kind] of [['clarify', 'ask'], ['pr', 'pull-request'], ['rev', 'review'], ['ci', 'checks'], ['gate', 'approve'], ['tag', 'label']] as const) {
      const known = KIND_OUTPUTS[kind]!;
      for (const key of keysOf(r, step)) expect(known, `${kind} output \`${key}\``).toContain(key);
    }
  });
});
