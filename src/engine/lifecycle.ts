// How steps and the run end: succeeded, skipped, failed, stopped, cancelled. Ending a
// run cancels what is still running but keeps everything already merged: the run
// branch head is never rolled back, and a merge already sent is still recorded.
import { aggregateCheck, closeStepCheck } from './checks-runs.ts';
import type { Draft } from './draft.ts';
import { keptNote } from './kept.ts';
import { workerRunName, jobKey } from './naming.ts';
import type { JobState, Json, RunStatus } from './types.ts';

export function succeedStep(d: Draft, stepId: string, outputs: Json, title: string, summary = ''): void {
  d.setStep(stepId, { status: 'succeeded', outputs, finishedAt: d.now, reason: null });
  closeStepCheck(d, stepId, 'success', title, summary || (outputs === null ? '' : '```json\n' + JSON.stringify(outputs, null, 2) + '\n```'));
}

export function skipStep(d: Draft, stepId: string, reason: string): void {
  d.setStep(stepId, { status: 'skipped', outputs: null, finishedAt: d.now, reason });
  closeStepCheck(d, stepId, 'skipped', reason);
}

/** A step failed for good: it fails the run, which cancels the rest. */
export function failStep(d: Draft, stepId: string, reason: string): void {
  if (d.state.status !== 'running') return;
  d.setStep(stepId, { status: 'failed', finishedAt: d.now, reason });
  cancelOpenJobs(d, stepId);
  closeStepCheck(d, stepId, 'failure', reason);
  endRun(d, 'failed', `step \`${stepId}\` failed: ${reason}`);
}

/** Tells the host to stop the worker of a job's current attempt. */
export function emitCancelWorker(d: Draft, stepId: string, job: JobState): void {
  d.emit({
    type: 'cancel-worker',
    runId: d.state.runId,
    key: `${jobKey(d.state.runId, stepId, job.slot, job.attempt)}/cancel`,
    step: stepId,
    slot: job.slot,
    attempt: job.attempt,
    runName: workerRunName(d.state.runId, stepId, job.slot, job.attempt),
    workflowRunId: job.workflowRunId,
  });
}

/** Cancels one job: running workers get a cancel command, queued merges leave the queue. */
export function cancelJob(d: Draft, stepId: string, job: JobState): void {
  if (job.status === 'running' && withdrawDispatch(d, stepId, job)) {
    // Dispatched by this very decision: the host never sees it, so nothing to cancel.
  } else if (job.status === 'running') {
    emitCancelWorker(d, stepId, job);
  }
  if (job.status === 'merge-queued') {
    const ref = `${stepId}/${job.slot}`;
    d.state.mergeQueue = d.state.mergeQueue.filter((r) => r !== ref);
  }
  // A merge already sent stays `merging`: its result still arrives and is recorded.
  if (job.status === 'running' || job.status === 'queued' || job.status === 'merge-queued') {
    d.setJob(stepId, job.slot, { status: 'cancelled', deadline: null });
  }
}

/**
 * Takes back a dispatch made earlier in the same decision (e.g. the first items of a
 * fan-out, when the budget stops the run before the next one): dispatching a worker
 * only to cancel it at once would waste a runner and confuse the Actions tab.
 */
function withdrawDispatch(d: Draft, stepId: string, job: JobState): boolean {
  const key = jobKey(d.state.runId, stepId, job.slot, job.attempt);
  const i = d.commands.findIndex((c) => c.type === 'dispatch-worker' && c.key === key);
  if (i < 0) return false;
  d.commands.splice(i, 1);
  d.state.budget = { ...d.state.budget, steps: d.state.budget.steps - 1 };
  return true;
}

export function cancelOpenJobs(d: Draft, stepId: string): void {
  for (const job of d.step(stepId).jobs) cancelJob(d, stepId, job);
}

/** Ends the run: every step still running is cancelled, then the record and checks say why. */
export function endRun(d: Draft, status: Exclude<RunStatus, 'idle' | 'running'>, reason: string | null): void {
  if (d.state.status !== 'running') return;
  for (const def of d.workflow.steps) {
    const st = d.step(def.id);
    if (st.status !== 'running') continue;
    cancelOpenJobs(d, def.id);
    const stopped = status === 'cancelled' ? reason ?? 'cancelled' : `not finished: the run ${status === 'stopped' ? 'stopped' : status}`;
    // A job a limit stopped (its cost, typically, when the budget ends the run) says what it kept and how to go on.
    const kept = st.jobs.map((j) => keptNote(d.state.runId, def.id, j)).find((n) => n !== '');
    const why = kept ? `${stopped} — ${kept}` : stopped;
    d.setStep(def.id, { status: 'cancelled', finishedAt: d.now, reason: why });
    closeStepCheck(d, def.id, 'cancelled', why);
  }
  d.state.status = status;
  d.state.reason = reason;
  d.state.finishedAt = d.now;
  d.visible = true;
  aggregateCheck(d);
  d.emit({ type: 'finish-run', runId: d.state.runId, key: `${d.state.runId}/finish/${d.event.key}`, status, reason });
}

/** The budget ran out: stop with the reason. */
export function stopRun(d: Draft, reason: string): void {
  endRun(d, 'stopped', reason);
}

export function finishIfDone(d: Draft): void {
  if (d.state.status !== 'running') return;
  for (const st of d.state.steps) {
    if (st.status !== 'succeeded' && st.status !== 'skipped') return;
  }
  endRun(d, 'succeeded', null);
}
