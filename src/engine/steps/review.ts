// `review` gates: a reviewer agent returns {approved, summary, comments}; changes
// requested start a fix round, after which the reviewer looks again. A human review on
// the run's PR counts too: approval passes the gate, changes requested start a fix round.
import type { ReviewStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import type { Draft } from '../draft.ts';
import type { ReviewSubmitted } from '../events.ts';
import { openJob } from '../jobs.ts';
import { cancelOpenJobs, failStep, succeedStep } from '../lifecycle.ts';
import { isAllowed } from '../roles.ts';
import { newJob } from '../state.ts';
import type { Feedback, JobState, ReviewComment } from '../types.ts';
import { fixOrFail } from './fix-round.ts';
import type { StepKindHandler } from './kind.ts';

interface ReviewOutputs {
  approved: boolean;
  summary: string;
  comments?: ReviewComment[];
}

function start(d: Draft, step: ReviewStep): void {
  d.setStep(step.id, { gate: { phase: 'reviewing', round: 0, deadline: null, pendingFeedback: null } });
  openStepCheck(d, step.id, d.step(step.id).opening, 'reviewing');
  startReviewer(d, step);
}

function startReviewer(d: Draft, step: ReviewStep): void {
  const st = d.step(step.id);
  d.setStep(step.id, { gate: { ...st.gate!, phase: 'reviewing' } });
  openJob(d, step.id, newJob('review', 'review', null, null, st.attempts['review'] ?? 0));
}

function jobSucceeded(d: Draft, step: ReviewStep, job: JobState): void {
  const g = d.step(step.id).gate!;
  if (job.kind === 'fix') {
    // Changes a human requested during the fix round come first; then the reviewer looks again.
    if (g.pendingFeedback) return fixOrFail(d, step, g.pendingFeedback, 'changes are still requested');
    return startReviewer(d, step);
  }
  const review = job.outputs as unknown as ReviewOutputs;
  const comments = review.comments ?? [];
  if (d.state.pr) {
    d.emit({
      type: 'post-review',
      runId: d.state.runId,
      key: `${d.state.runId}/${step.id}/review/${job.attempt}/post`,
      step: step.id,
      prNumber: d.state.pr.number,
      approved: review.approved,
      body: review.summary,
      comments,
    });
  }
  if (review.approved) {
    return succeedStep(d, step.id, { approved: true, summary: review.summary, comments: comments as never, rounds: g.round }, `approved after ${g.round} fix rounds`, review.summary);
  }
  const feedback: Feedback = { source: 'review', summary: review.summary, comments, checks: [] };
  fixOrFail(d, step, feedback, `the reviewer requested changes: ${review.summary}`);
}

function jobFailed(d: Draft, step: ReviewStep, job: JobState): void {
  const what = job.kind === 'fix' ? `fix round ${d.step(step.id).gate!.round} failed` : 'the reviewer failed';
  failStep(d, step.id, `${what} after ${job.failures} attempt(s): ${job.lastError ?? 'unknown error'}`);
}

/** A human review on the run's PR, applied to a running review gate. */
export function humanReview(d: Draft, step: ReviewStep, ev: ReviewSubmitted): void {
  // On a public repository anyone may review; only people with the workflow's roles count.
  if (!isAllowed(ev.permission, d.workflow.on.roles) || ev.state === 'commented') return;
  const st = d.step(step.id);
  const g = st.gate!;
  if (ev.state === 'approved') {
    cancelOpenJobs(d, step.id);
    return succeedStep(d, step.id, { approved: true, summary: ev.body, comments: [], rounds: g.round, by: ev.actor }, `approved by @${ev.actor}`, ev.body);
  }
  const feedback: Feedback = { source: 'human-review', summary: ev.body, by: ev.actor, comments: ev.comments, checks: [] };
  if (g.phase === 'fixing') {
    // Don't interrupt the fix in progress: handle this review right after it.
    const pending = g.pendingFeedback;
    const merged: Feedback = pending
      ? { ...feedback, summary: `${pending.summary}\n\n${feedback.summary}`, comments: [...pending.comments, ...feedback.comments] }
      : feedback;
    d.setStep(step.id, { gate: { ...g, pendingFeedback: merged } });
    return;
  }
  cancelOpenJobs(d, step.id);
  fixOrFail(d, step, feedback, `@${ev.actor} requested changes: ${ev.body}`);
}

export const reviewStep: StepKindHandler<ReviewStep> = { start, jobSucceeded, jobFailed };
