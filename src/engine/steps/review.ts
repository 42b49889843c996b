// `review` gates: a reviewer agent returns {approved, summary, comments}; changes
// requested start a fix round, after which the reviewer looks again. A human review on
// the run's PR counts too: approval passes the gate, changes requested start a fix round.
// On a pull request the run did not open (a run bound to someone else's PR), the review
// posted there is the result: the step waits until the host confirms GitHub has it.
import type { ReviewStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import { deliver } from '../deliverable.ts';
import type { Draft } from '../draft.ts';
import type { ReviewEvent } from '../commands.ts';
import type { ReviewFailed, ReviewPosted, ReviewSubmitted } from '../events.ts';
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

/** Where a review step's review goes, and whether the run opened that pull request. */
interface ReviewTarget {
  number: number;
  own: boolean;
}

/**
 * The run's own PR when it has one; else the pull request the run is bound to (started by an
 * event on someone else's PR); else nowhere (a run from an issue before its PR exists).
 */
export function reviewTarget(d: Draft): ReviewTarget | null {
  if (d.state.pr) return { number: d.state.pr.number, own: true };
  if (d.state.thread?.kind === 'pull') return { number: d.state.thread.number, own: false };
  return null;
}

/**
 * The review event to post. On the run's own PR always COMMENT: GitHub refuses approvals and
 * change requests from a PR's author, and baton opened it. On a fork run always COMMENT: an
 * App's approval counts toward required reviews, and the fork's text can steer the verdict
 * (manifest/fork-review.ts refuses such `verdicts`; this holds if one got past). Elsewhere the
 * reviewer's verdict, when the step's `verdicts` allow it (absent: comment only), else COMMENT.
 */
export function reviewEvent(step: ReviewStep, approved: boolean, own: boolean, fork = false): ReviewEvent {
  if (own || fork) return 'COMMENT';
  const allowed = step.verdicts ?? ['comment'];
  if (approved && allowed.includes('approve')) return 'APPROVE';
  if (!approved && allowed.includes('request-changes')) return 'REQUEST_CHANGES';
  return 'COMMENT';
}

function start(d: Draft, step: ReviewStep): void {
  // A review that is the run's whole deliverable (no step writes anything, no `fix` round uses it)
  // with no pull request to post on, now or later (the run is on an issue and opens none), would
  // end green having shown nobody anything: it fails before the reviewer costs anything, saying
  // where to start it. A review gating work the run wrote is a gate, and stays one.
  const delivers = d.workflow.steps.some((s) => s.kind === 'pull-request' || ((s.kind === 'agent' || s.kind === 'run') && s.writes));
  if (!reviewTarget(d) && step.fix === undefined && !delivers) {
    const where = d.state.thread ? `issue #${d.state.thread.number}` : 'no issue or pull request';
    return failStep(d, step.id, `nowhere to post the review: the run is on ${where} and opens no pull request; start \`${d.workflow.name}\` on a pull request (locally: \`--input pr=<branch>\`)`);
  }
  d.setStep(step.id, { gate: { phase: 'reviewing', round: 0, deadline: null, pendingFeedback: null } });
  openStepCheck(d, step.id, d.step(step.id).opening, 'reviewing');
  startReviewer(d, step);
}

function startReviewer(d: Draft, step: ReviewStep): void {
  const st = d.step(step.id);
  d.setStep(step.id, { gate: { ...st.gate!, phase: 'reviewing' } });
  openJob(d, step.id, newJob('review', 'review', null, null, st.attempts['review'] ?? 0));
}

const POSTED_AS: Record<ReviewEvent, string> = { APPROVE: 'approved', REQUEST_CHANGES: 'requested changes on', COMMENT: 'commented on' };

function jobSucceeded(d: Draft, step: ReviewStep, job: JobState): void {
  const g = d.step(step.id).gate!;
  if (job.kind === 'fix') {
    // Changes a human requested during the fix round come first; then the reviewer looks again.
    if (g.pendingFeedback) return fixOrFail(d, step, g.pendingFeedback, 'changes are still requested');
    return startReviewer(d, step);
  }
  const review = job.outputs as unknown as ReviewOutputs;
  const to = reviewTarget(d);
  if (to) {
    d.emit({
      type: 'post-review',
      runId: d.state.runId,
      key: postKey(d, step, job.attempt),
      step: step.id,
      attempt: job.attempt,
      prNumber: to.number,
      approved: review.approved,
      event: reviewEvent(step, review.approved, to.own, d.state.fork === true),
      commit: d.state.head,
      body: review.summary,
      comments: review.comments ?? [],
      confirm: !to.own,
      ...(d.state.fork && { fork: true as const }),
    });
  }
  // On a pull request the run did not open, the review is what the step delivers: it is done
  // when GitHub has it (review.posted), and fails when GitHub refuses it (review.failed).
  if (to && !to.own) {
    d.setStep(step.id, { gate: { ...g, phase: 'posting' }, note: `posting the review on #${to.number}` });
    d.visible = true;
    return;
  }
  conclude(d, step, review, null, to ? { number: to.number, attempt: job.attempt, reviewId: null } : null);
}

/** The post-review command's key, which the review carries as its marker: how the host finds it again. */
const postKey = (d: Draft, step: ReviewStep, attempt: number): string => `${d.state.runId}/${step.id}/review/${attempt}/post`;

/**
 * The reviewer's verdict applied, once its review is posted where it has to be (`posted`), or at
 * once. A review posted on a pull request (`on`) is done only when it is read back there.
 */
function conclude(
  d: Draft,
  step: ReviewStep,
  review: ReviewOutputs,
  posted: { event: ReviewEvent; url: string; number: number } | null,
  on: { number: number; attempt: number; reviewId: number | null } | null,
): void {
  const g = d.step(step.id).gate!;
  const comments = review.comments ?? [];
  const outputs = { approved: review.approved, summary: review.summary, comments: comments as never, rounds: g.round, ...(posted ? { event: posted.event, url: posted.url } : {}) };
  const where = posted ? `${POSTED_AS[posted.event]} #${posted.number}` : '';
  const text = posted?.url ? `${review.summary}\n\n${posted.url}` : review.summary;
  const done = (title: string): void =>
    on
      ? deliver(d, step.id, { kind: 'review', prNumber: on.number, marker: postKey(d, step, on.attempt), reviewId: on.reviewId }, outputs, title, text)
      : succeedStep(d, step.id, outputs, title, text);
  if (review.approved) return done(posted ? where : `approved after ${g.round} fix rounds`);
  // Without a fix step, a review of someone else's pull request is the deliverable: changes
  // requested there are the reviewer's answer, not a failure of the run.
  if (posted && !step.fix) return done(where);
  const feedback: Feedback = { source: 'review', summary: review.summary, comments, checks: [] };
  fixOrFail(d, step, feedback, `the reviewer requested changes: ${review.summary}`);
}

/** The review step waiting for this attempt's review to be posted, if it still is. */
function posting(d: Draft, step: ReviewStep, attempt: number): JobState | null {
  if (d.state.status !== 'running') return null;
  const st = d.step(step.id);
  if (st.status !== 'running' || st.gate?.phase !== 'posting') return null;
  const job = st.jobs.find((j) => j.slot === 'review');
  return job && job.attempt === attempt ? job : null;
}

export function reviewPosted(d: Draft, step: ReviewStep, ev: ReviewPosted): void {
  const job = posting(d, step, ev.attempt);
  const to = reviewTarget(d);
  if (!job || !to) return;
  d.setStep(step.id, { gate: { ...d.step(step.id).gate!, phase: 'reviewing' }, note: null });
  conclude(d, step, job.outputs as unknown as ReviewOutputs, { event: ev.event, url: ev.url, number: to.number }, { number: to.number, attempt: job.attempt, reviewId: ev.reviewId });
}

export function reviewFailed(d: Draft, step: ReviewStep, ev: ReviewFailed): void {
  if (!posting(d, step, ev.attempt)) return;
  const to = reviewTarget(d);
  failStep(d, step.id, `the review could not be posted on #${to?.number ?? '?'}: ${ev.error}`);
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
