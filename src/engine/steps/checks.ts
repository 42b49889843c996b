// `checks` gates: wait until the named check runs / statuses on the run branch head
// have all completed; all green passes, any red starts a fix round with the failing
// output, and the gate then waits for the checks of the new head.
import type { ChecksStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import type { Draft } from '../draft.ts';
import { failStep, succeedStep } from '../lifecycle.ts';
import type { CheckResult, JobState } from '../types.ts';
import { fixOrFail } from './fix-round.ts';
import type { StepKindHandler } from './kind.ts';

/** Conclusions that count as passing (as branch protection treats them). */
const PASSING = new Set(['success', 'neutral', 'skipped']);

function start(d: Draft, step: ChecksStep): void {
  d.setStep(step.id, { gate: { phase: 'waiting-checks', round: 0, deadline: null, pendingFeedback: null } });
  openStepCheck(d, step.id, d.step(step.id).opening, `waiting for ${step.names.join(', ')}`);
  wait(d, step);
}

/** Starts waiting for the checks of the current head (dispatching the CI workflow if asked). */
function wait(d: Draft, step: ChecksStep): void {
  const g = d.step(step.id).gate!;
  const deadline = step.timeoutMinutes === undefined ? null : d.now + step.timeoutMinutes * 60_000;
  d.setStep(step.id, { gate: { ...g, phase: 'waiting-checks', deadline } });
  if (step.workflow) {
    d.emit({
      type: 'dispatch-checks-workflow',
      runId: d.state.runId,
      key: `${d.state.runId}/${step.id}/ci/${d.step(step.id).opening}/${g.round}`,
      step: step.id,
      workflowFile: step.workflow,
      ref: d.state.runBranch,
      sha: d.state.head,
    });
  }
  update(d, step);
}

/** The checks that matter on the current head, and whether all of them have completed. */
function relevant(d: Draft, step: ChecksStep): { results: CheckResult[]; done: boolean; missing: string[] } {
  const seen = d.state.checks[d.state.head];
  if (step.names.includes('*')) {
    // baton's own check runs are not CI.
    const results = Object.values(seen?.results ?? {}).filter((r) => !r.name.startsWith('baton / '));
    const pending = results.filter((r) => r.conclusion === null).map((r) => r.name);
    return { results, done: (seen?.complete ?? false) && pending.length === 0, missing: pending.length ? pending : ['(all checks)'] };
  }
  const results = step.names.map((name) => seen?.results[name] ?? { name, conclusion: null });
  const missing = results.filter((r) => r.conclusion === null).map((r) => r.name);
  return { results, done: missing.length === 0, missing };
}

function update(d: Draft, step: ChecksStep): void {
  const g = d.step(step.id).gate;
  if (!g || g.phase !== 'waiting-checks') return;
  const { results, done, missing } = relevant(d, step);
  if (!done) {
    if (g.deadline !== null && d.now >= g.deadline) {
      failStep(d, step.id, `checks did not complete within ${step.timeoutMinutes} minutes (still waiting for ${missing.join(', ')})`);
    }
    return;
  }
  const failing = results.filter((r) => !PASSING.has(r.conclusion!));
  if (failing.length === 0) {
    const checks = results.map((r) => ({ name: r.name, conclusion: r.conclusion }));
    return succeedStep(d, step.id, { sha: d.state.head, checks, rounds: g.round }, `${results.length} checks passed`);
  }
  const list = failing.map((r) => `${r.name} (${r.conclusion})`).join(', ');
  fixOrFail(d, step, { source: 'checks', summary: `Failing checks on ${d.state.head}: ${list}`, comments: [], checks: failing }, `checks failed: ${list}`);
}

function jobSucceeded(d: Draft, step: ChecksStep): void {
  // The fix is merged: the head moved, wait for its checks.
  wait(d, step);
}

function jobFailed(d: Draft, step: ChecksStep, job: JobState): void {
  failStep(d, step.id, `fix round ${d.step(step.id).gate!.round} failed after ${job.failures} attempt(s): ${job.lastError ?? 'unknown error'}`);
}

export const checksStep: StepKindHandler<ChecksStep> = { start, update, jobSucceeded, jobFailed };
