// nextDeadline: the moment a timer host (the App's sweep, Actions-only's schedule) must send
// `time.passed` — the run moves exactly then, not a millisecond before; and nothing is due
// when only an event can move the run (a sweep then writes nothing).
import { describe, expect, it } from 'vitest';
import { nextDeadline } from '../../src/engine/deadlines.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { agent, ask, checks, workflow } from './builder.ts';
import { Run } from './harness.ts';

/** What a person would see change: the run's and its steps' and jobs' statuses and attempts. */
const shape = (r: Run) => JSON.stringify([r.state.status, r.state.steps.map((s) => [s.status, s.jobs.map((j) => [j.status, j.attempt])])]);

/** At `nextDeadline - 1` time.passed changes nothing; at `nextDeadline` the run moves. */
function movesExactlyAtItsDeadline(r: Run, wf: Workflow): number {
  const due = nextDeadline(r.state, wf);
  expect(due).not.toBeNull();
  const before = shape(r);
  r.now = due! - 1;
  r.send({ type: 'time.passed' });
  expect(shape(r)).toBe(before);
  r.now = due!;
  r.send({ type: 'time.passed' });
  expect(shape(r)).not.toBe(before);
  return due!;
}

describe('nextDeadline', () => {
  it('is a running attempt past its timeout-minutes', () => {
    const wf = workflow([agent('a', { retries: 1, timeoutMinutes: 30 })]);
    const r = new Run(wf);
    r.start();
    const t0 = r.now;
    expect(movesExactlyAtItsDeadline(r, wf)).toBe(t0 + 30 * 60_000);
    expect(r.dispatch('a').attempt).toBe(2);
  });

  it("is an ask step's timeout-hours", () => {
    const wf = workflow([ask('q', { timeoutHours: 2 })], { budget: { maxMinutes: 600 } });
    const r = new Run(wf);
    r.start();
    expect(movesExactlyAtItsDeadline(r, wf)).toBe(r.state.startedAt! + 2 * 3_600_000);
    expect(r.status('q')).toBe('failed');
  });

  it("is a checks gate's timeout-minutes", () => {
    const wf = workflow([agent('impl'), checks('ci', { timeoutMinutes: 45 })]);
    const r = new Run(wf);
    r.start();
    r.complete('impl');
    expect(r.status('ci')).toBe('running');
    movesExactlyAtItsDeadline(r, wf);
    expect(r.state.reason).toContain('checks did not complete within 45 minutes');
  });

  it("is the budget's max-minutes when that comes first", () => {
    const wf = workflow([ask('q', { timeoutHours: 2 })], { budget: { maxMinutes: 60 } });
    const r = new Run(wf);
    r.start();
    expect(movesExactlyAtItsDeadline(r, wf)).toBe(r.state.startedAt! + 60 * 60_000);
    expect(r.state.reason).toContain('budget: max-minutes 60 reached');
  });

  it('is none once the run has ended', () => {
    const wf = workflow([ask('q', { timeoutHours: 1 })]);
    const r = new Run(wf);
    r.start();
    r.pass(61);
    expect(r.state.status).toBe('failed');
    expect(nextDeadline(r.state, wf)).toBeNull();
  });
});
