// When a run next needs the clock: the earliest moment at which a `time.passed` event
// would change something (a worker attempt past its deadline, an ask step's or a checks
// gate's timeout, the budget's minutes, an open circuit breaker's cooldown with work
// waiting for it). Hosts with a timer (the App's sweep, Actions-only's schedule) send
// `time.passed` only once this moment has come: a tick that changes nothing would still
// be an applied event, and so an edit of the status comment, on every sweep.
import type { Workflow } from '../manifest/types.ts';
import { DEFAULT_MAX_MINUTES } from './budget.ts';
import type { RunState } from './types.ts';

/** Epoch ms of the run's next deadline, or null when only an event can move it. */
export function nextDeadline(state: RunState, workflow: Workflow): number | null {
  if (state.status !== 'running') return null;
  const at: number[] = [];
  if (state.startedAt !== null) at.push(state.startedAt + (workflow.budget.maxMinutes ?? DEFAULT_MAX_MINUTES) * 60_000);
  let queued = false;
  for (const step of state.steps) {
    if (step.status !== 'running') continue;
    if (step.ask?.deadline != null) at.push(step.ask.deadline);
    if (step.gate?.phase === 'waiting-checks' && step.gate.deadline !== null) at.push(step.gate.deadline);
    for (const job of step.jobs) {
      if (job.status === 'running' && job.deadline !== null) at.push(job.deadline);
      if (job.status === 'queued') queued = true;
    }
  }
  // A job held back by an open breaker waits for its cooldown to end, not for an event.
  if (queued) for (const b of Object.values(state.breakers ?? {})) if (b.status === 'open' && b.until !== null) at.push(b.until);
  return at.length ? Math.min(...at) : null;
}
