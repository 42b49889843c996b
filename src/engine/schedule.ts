// After every event: stop the run if its budget is gone, time out what is overdue,
// start every step whose needs are done, let running steps make progress, and finish
// the run when every step is done. Repeated until nothing changes, because starting a
// step can finish it at once (skipped, no items, checks already green).
import type { Step } from '../manifest/types.ts';
import { budgetExceeded } from './budget.ts';
import type { Draft } from './draft.ts';
import { pumpMerges, timeOutJobs } from './jobs.ts';
import { failStep, finishIfDone, skipStep, stopRun } from './lifecycle.ts';
import { condition } from './scope.ts';
import { handlerFor } from './steps/index.ts';
import { DONE_STEP_STATUSES } from './types.ts';

function needsDone(d: Draft, step: Step): boolean {
  return step.needs.every((id) => {
    const s = d.state.steps[id];
    return s !== undefined && DONE_STEP_STATUSES.includes(s.status);
  });
}

function startStep(d: Draft, step: Step): void {
  const st = d.step(step.id);
  d.setStep(step.id, {
    status: 'running',
    reason: null,
    outputs: null,
    startedAt: d.now,
    finishedAt: null,
    opening: st.opening + 1,
    fanOut: false,
    jobs: [],
    check: null,
    gate: null,
    ask: null,
    failures: 0,
    note: null,
  });
  if (step.if !== undefined) {
    const c = condition(d, step.if);
    if (!c.ok) return failStep(d, step.id, `if: ${c.error}`);
    if (!c.value) return skipStep(d, step.id, `skipped: \`${step.if.trim()}\` is false`);
  }
  handlerFor(step).start(d, step);
}

const running = (d: Draft): boolean => d.state.status === 'running';

export function advance(d: Draft): void {
  if (!running(d)) return;
  const over = budgetExceeded(d);
  if (over) return stopRun(d, over);
  for (const step of d.workflow.steps) {
    if (!running(d)) return;
    if (d.step(step.id).status === 'running') timeOutJobs(d, step.id);
  }
  // Each pass either changes some step's status or ends the loop; a status only moves
  // forward within one event, so this terminates (bounded anyway, for safety).
  for (let pass = 0; pass <= d.workflow.steps.length * 4 + 4 && running(d); pass++) {
    let progressed = false;
    for (const step of d.workflow.steps) {
      if (!running(d)) return;
      const st = d.step(step.id);
      if (st.status === 'waiting' && needsDone(d, step)) {
        startStep(d, step);
        progressed = true;
      } else if (st.status === 'running') {
        const before = d.state.steps[step.id];
        handlerFor(step).update?.(d, step);
        if (d.state.steps[step.id]?.status !== before?.status) progressed = true;
      }
    }
    pumpMerges(d);
    if (!progressed) break;
  }
  finishIfDone(d);
}
