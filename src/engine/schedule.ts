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

function needsDone(d: Draft, position: number): boolean {
  for (const i of d.index.needs[position]!) {
    const status = d.state.steps[i]?.status;
    if (status !== 'succeeded' && status !== 'skipped') return false;
  }
  return true;
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
    // A job a limit stopped with its work kept is handed to the worker step's start, which resumes it (steps/worker.ts).
    jobs: step.kind === 'agent' || step.kind === 'run' ? st.jobs.filter((j) => j.limit && j.checkpoint !== null) : [],
    check: null,
    gate: null,
    ask: null,
    failures: 0,
    note: null,
    delivering: null,
    delivered: undefined,
  });
  if (step.if !== undefined) {
    const c = condition(d, step.if);
    if (!c.ok) return failStep(d, step.id, `if: ${c.error}`);
    if (!c.value) return skipStep(d, step.id, `\`${step.if.trim()}\` is false`);
  }
  handlerFor(step).start(d, step);
}

/**
 * Runs after every event. One pass over the steps: time out overdue attempts, start
 * steps whose needs are done, let running steps move on. Another pass is needed only
 * when a step *finished* during the pass (that can free steps that need it, including
 * ones listed earlier); starting a step alone frees nothing.
 */
export function advance(d: Draft): void {
  if (d.state.status !== 'running') return;
  const over = budgetExceeded(d);
  if (over) return stopRun(d, over);
  const defs = d.workflow.steps;
  // The draft's steps array is copied once per event and edited in place: index freely.
  const states = d.state.steps;
  // Bounded for safety; each extra pass needs a step to have finished, which happens at most once per step.
  for (let pass = 0; pass <= defs.length + 1; pass++) {
    let finished = false;
    for (let i = 0; i < defs.length; i++) {
      if (d.state.status !== 'running') return;
      const before = states[i]!.status;
      if (before === 'waiting') {
        if (d.statusChanges === 0 || !needsDone(d, i)) continue;
        startStep(d, defs[i]!);
      } else if (before === 'running') {
        if (pass === 0) timeOutJobs(d, defs[i]!.id);
        if (states[i]!.status === 'running') handlerFor(defs[i]!).update?.(d, defs[i]!);
      } else continue;
      const after = states[i]!.status;
      if (after !== 'running' && after !== 'waiting') finished = true;
    }
    pumpMerges(d);
    if (!finished) break;
  }
  finishIfDone(d);
}
