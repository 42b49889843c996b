// `checks` gates: wait until the named check runs / statuses on the run branch head
// have all completed; all green passes, any red starts a fix round with the failing
// output, and the gate then waits for the checks of the new head. A check or suite
// waiting for a person's approval (`action_required`) is waited for, never "fixed".
import { sayDeadlinePassed } from '../deadline-notice.ts';
import type { ChecksStep } from '../../manifest/types.ts';
import { openStepCheck, retitleStepCheck } from '../checks-runs.ts';
import type { Draft } from '../draft.ts';
import { failStep, succeedStep } from '../lifecycle.ts';
import type { CheckResult, JobState, RunState } from '../types.ts';
import { AWAITING_APPROVAL, APPROVAL_HELP, approvalNote, AVOID_APPROVAL } from './checks-approval.ts';
import { fixOrFail } from './fix-round.ts';
import type { StepKindHandler } from './kind.ts';

/** Conclusions that count as passing (as branch protection treats them). */
const PASSING = new Set(['success', 'neutral', 'skipped']);

function start(d: Draft, step: ChecksStep): void {
  d.setStep(step.id, { gate: { phase: 'waiting-checks', round: 0, deadline: null, pendingFeedback: null }, note: null });
  openStepCheck(d, step.id, d.step(step.id).opening, waitingTitle(step));
  wait(d, step);
}

function waitingTitle(step: ChecksStep): string {
  return `waiting for ${step.names.join(', ')}`;
}

/**
 * Whether a report of CI on `sha` can matter to the run: a `checks` gate waits on it (the head).
 * Any other report changes nothing (decide.ts), so it costs no claim and no record write — most
 * CI events of a run come while no gate waits (the run branch's CI after every merge) — and a
 * gate reads what came before it when it starts waiting (`read-checks`).
 */
export function awaitsChecksOn(state: RunState, sha: string): boolean {
  return state.status === 'running' && sha === state.head && state.steps.some((s) => s.status === 'running' && s.gate?.phase === 'waiting-checks');
}

/** Starts waiting for the checks of the current head (dispatching the CI workflow if asked). */
function wait(d: Draft, step: ChecksStep): void {
  const g = d.step(step.id).gate!;
  const deadline = step.timeoutMinutes === undefined ? null : d.now + step.timeoutMinutes * 60_000;
  d.setStep(step.id, { gate: { ...g, phase: 'waiting-checks', deadline } });
  // CI that finished before the gate waited was not kept: read it now (the answer is applied
  // before anything else of this run, so no report in between is lost).
  d.emit({
    type: 'read-checks',
    runId: d.state.runId,
    key: `${d.state.runId}/${step.id}/read-checks/${d.step(step.id).opening}/${g.round}`,
    step: step.id,
    sha: d.state.head,
    branch: d.state.runBranch,
  });
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

interface Relevant {
  results: CheckResult[];
  done: boolean;
  /** What is still awaited (for the timeout message). */
  missing: string[];
  /** Checks and suites among those awaited that wait for a person's approval. */
  approval: string[];
}

/** The checks that matter on the current head, and whether all of them have settled. */
function relevant(d: Draft, step: ChecksStep): Relevant {
  const seen = d.state.checks[d.state.head];
  const suites = Object.values(seen?.suites ?? {});
  const held = suites.filter((s) => s.conclusion === AWAITING_APPROVAL).map((s) => s.label);
  const settled = (r: CheckResult): boolean => r.conclusion !== null && r.conclusion !== AWAITING_APPROVAL;
  const heldChecks = (rs: CheckResult[]): string[] => rs.filter((r) => r.conclusion === AWAITING_APPROVAL).map((r) => r.name);
  if (step.names.includes('*')) {
    // baton's own check runs are not CI; and no check at all is not "all green".
    const results = Object.values(seen?.results ?? {}).filter((r) => !r.name.startsWith('baton / '));
    const pending = results.filter((r) => !settled(r));
    const running = suites.some((s) => s.conclusion === null);
    const done = (seen?.complete ?? false) && results.length > 0 && pending.length === 0 && held.length === 0 && !running;
    const missing = pending.length ? pending.map((r) => r.name) : [results.length ? '(all checks)' : '(any check)'];
    return { results, done, missing, approval: [...heldChecks(pending), ...held] };
  }
  const results = step.names.map((name) => seen?.results[name] ?? { name, conclusion: null });
  const pending = results.filter((r) => !settled(r));
  // A held suite may be the one that would run a missing check: name it while anything is missing.
  return { results, done: pending.length === 0, missing: pending.map((r) => r.name), approval: pending.length ? [...heldChecks(pending), ...held] : [] };
}

/** Says in the step's status and check run what it waits for, when that changes. */
function showWaiting(d: Draft, step: ChecksStep, approval: string[]): void {
  const note = approvalNote(approval);
  if (note === d.step(step.id).note) return;
  d.setStep(step.id, { note });
  d.visible = true; // the status comment shows the note
  retitleStepCheck(d, step.id, note ?? waitingTitle(step), note ? APPROVAL_HELP : '');
}

function timedOut(d: Draft, step: ChecksStep, { results, missing, approval }: Relevant): string {
  const within = `within ${step.timeoutMinutes} minutes`;
  if (approval.length) {
    const others = missing.filter((m) => !approval.includes(m));
    return `checks did not complete ${within} (${others.length ? `still waiting for ${others.join(', ')}; ` : ''}waiting for approval: ${approval.join(', ')} — ${AVOID_APPROVAL})`;
  }
  if (step.names.includes('*') && results.length === 0) return `no check reported on ${d.state.head} ${within} (\`names: ["*"]\` needs at least one check besides baton's own)`;
  return `checks did not complete ${within} (still waiting for ${missing.join(', ')})`;
}

function update(d: Draft, step: ChecksStep): void {
  const g = d.step(step.id).gate;
  if (!g || g.phase !== 'waiting-checks') return;
  const seen = relevant(d, step);
  showWaiting(d, step, seen.approval);
  const { results, done } = seen;
  if (!done) {
    if (g.deadline !== null && d.now >= g.deadline) {
      const why = timedOut(d, step, seen);
      sayDeadlinePassed(d, step.id, why);
      failStep(d, step.id, why);
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
