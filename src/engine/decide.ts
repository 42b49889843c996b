// decide(state, event, workflow) → { state, commands }: the whole of baton's control
// flow. Pure: no I/O, no clock but the event's `at`, no randomness, and the input state
// is never mutated. A redelivered event (same key) changes nothing and commands nothing.
import type { Workflow } from '../manifest/types.ts';
import type { Command } from './commands.ts';
import {
  onAnswers,
  onApproval,
  onCancel,
  onChecks,
  onHumanReview,
  onLabelsApplied,
  onLabelsFailed,
  onPullRequestEnsured,
  onPullRequestFailed,
  onRetry,
  onReviewFailed,
  onReviewPosted,
} from './control.ts';
import { onDeliverableRead } from './deliverable.ts';
import { Draft } from './draft.ts';
import type { RunEvent } from './events.ts';
import { onMergeCompleted, onMergeFailed, onWorkerDispatched, onWorkerFailed, onWorkerFinished, pumpMerges } from './jobs.ts';
import { endRun } from './lifecycle.ts';
import { advance } from './schedule.ts';
import { showStarted, startRun } from './start.ts';
import { awaitsChecksOn } from './steps/checks.ts';
import { APPLIED_KEYS_LIMIT, type RunState } from './types.ts';

export interface Decision {
  state: RunState;
  commands: Command[];
}

export function decide(state: RunState, event: RunEvent, workflow: Workflow): Decision {
  if (state.appliedKeys.includes(event.key) || settledAlready(state, event)) return { state, commands: [] };
  // CI on a commit no gate waits on: nothing to record (a gate reads what came before it).
  if (event.type === 'checks.reported' && !awaitsChecksOn(state, event.sha)) return { state, commands: [] };
  const d = new Draft(state, workflow, event);
  apply(d, event);
  advance(d);
  pumpMerges(d);
  if (event.type === 'run.requested') showStarted(d, state);
  const keys = state.appliedKeys.length >= APPLIED_KEYS_LIMIT ? state.appliedKeys.slice(1 - APPLIED_KEYS_LIMIT) : state.appliedKeys.slice();
  keys.push(event.key);
  d.state.appliedKeys = keys;
  if (event.commentsUpTo !== undefined) d.state.commentsUpTo = Math.max(event.commentsUpTo, state.commentsUpTo ?? 0);
  d.state.clock = d.now;
  if (d.visible && d.state.status !== 'idle') d.emit({ type: 'render-record', runId: d.state.runId, key: `${d.state.runId}/render/${event.key}` });
  return { state: d.state, commands: d.commands };
}

/** A comment's event at or below the run's mark: applied before, its key perhaps forgotten since. */
function settledAlready(state: RunState, event: RunEvent): boolean {
  return event.commentsUpTo !== undefined && state.commentsUpTo !== undefined && event.commentsUpTo <= state.commentsUpTo;
}

function apply(d: Draft, ev: RunEvent): void {
  if (ev.type === 'run.requested') return startRun(d, ev);
  // Before a run exists there is nothing to apply the event to.
  if (d.state.status === 'idle') return;
  switch (ev.type) {
    case 'worker.dispatched':
      return onWorkerDispatched(d, ev);
    case 'worker.finished':
      return onWorkerFinished(d, ev);
    case 'worker.failed':
      return onWorkerFailed(d, ev);
    case 'merge.completed':
      return onMergeCompleted(d, ev);
    case 'merge.conflicted':
    case 'merge.refused':
      return onMergeFailed(d, ev);
    case 'checks.reported':
      return onChecks(d, ev);
    case 'pull-request.ensured':
      return onPullRequestEnsured(d, ev);
    case 'pull-request.failed':
      return onPullRequestFailed(d, ev);
    case 'labels.applied':
      return onLabelsApplied(d, ev);
    case 'labels.failed':
      return onLabelsFailed(d, ev);
    case 'review.posted':
      return onReviewPosted(d, ev);
    case 'review.failed':
      return onReviewFailed(d, ev);
    case 'deliverable.read':
      return onDeliverableRead(d, ev);
    case 'retry.requested':
      return onRetry(d, ev);
    case 'run-branch.updated':
      // Only from the head it was made from: a later head already holds more.
      if (d.state.head === ev.from) d.state.head = ev.head;
      return;
    case 'run-branch.refused':
      return endRun(d, 'failed', ev.error);
    case 'time.passed':
      return;
  }
  // What follows only means something while the run is going.
  if (d.state.status !== 'running') {
    if (ev.type === 'cancel.requested') onCancel(d, ev);
    return;
  }
  switch (ev.type) {
    case 'cancel.requested':
      return onCancel(d, ev);
    case 'questions.answered':
      return onAnswers(d, ev);
    case 'approval.given':
      return onApproval(d, ev);
    case 'review.submitted':
      return onHumanReview(d, ev);
  }
}
