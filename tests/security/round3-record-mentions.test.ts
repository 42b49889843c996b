// The status comment shows text baton did not write: a failing agent's error, a step's note, an
// agent's question. A prompt-injected agent could put `@org/security-team` there to page people
// from baton's bot on every edit; such text is rendered with its mentions made inert (a
// zero-width space after `@`), as reviews and questions are. baton's own words keep theirs.
import { describe, expect, it } from 'vitest';
import { renderRecord } from '../../src/record/render.ts';
import { agent, ask, workflow } from '../engine/builder.ts';
import { Run } from '../engine/harness.ts';

const live = /(^|[^\w`])@(?=[A-Za-z0-9])/;

describe('mentions in the status comment', () => {
  it("makes an agent's failure reason inert, in the step's row and the run's reason", () => {
    const wf = workflow([agent('impl', { retries: 0 })]);
    const r = new Run(wf);
    r.start();
    r.fail('impl', { error: 'cc @acme/security-team and @alice: rotate the keys now' });
    const body = renderRecord(r.state, wf);
    expect(body).toContain('@\u200Bacme/security-team');
    expect(body).toContain('@\u200Balice');
    const visible = body.split('\n').filter((l) => !l.startsWith('<!--'));
    expect(visible.filter((l) => live.test(l))).toEqual([]);
  });

  it("makes an agent's open question inert", () => {
    const wf = workflow([agent('plan', { writes: false }), ask('clarify', { questions: '${{ steps.plan.outputs.questions }}' })]);
    const r = new Run(wf);
    r.start();
    r.finish('plan', { questions: ['@octocat should this ship?'] });
    const body = renderRecord(r.state, wf);
    expect(body).toContain('@\u200Boctocat should this ship?');
  });

  it("keeps baton's own mention of who answered", () => {
    const wf = workflow([ask('clarify')]);
    const r = new Run(wf);
    r.start();
    r.send({ type: 'questions.answered', actor: 'alice', permission: 'admin', answers: ['yes'] });
    expect(renderRecord(r.state, wf)).toContain('answered by @alice');
  });
});
