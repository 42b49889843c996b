// Events people cause in the thread: cancel, retry, approve, answers, PR reviews, and
// the checks and PR results hosts report. Routed here to the steps they concern.
import type { ApproveStep, AskStep, LabelStep, ReviewStep, PullRequestStep } from '../manifest/types.ts';
import { aggregateCheck } from './checks-runs.ts';
import type { Draft } from './draft.ts';
import type {
  ApprovalGiven,
  CancelRequested,
  ChecksReported,
  LabelsApplied,
  LabelsFailed,
  PullRequestEnsured,
  PullRequestFailed,
  QuestionsAnswered,
  RetryRequested,
  ReviewFailed,
  ReviewPosted,
  ReviewSubmitted,
} from './events.ts';
import { cancelOpenJobs, endRun } from './lifecycle.ts';
import { describeRoles, isAllowed } from './roles.ts';
import { applyRaise, describeRaise, raiseRefusal } from './raise.ts';
import { isTerminal } from './state.ts';
import { approve } from './steps/approve.ts';
import { answer } from './steps/ask.ts';
import { labelsApplied, labelsFailed } from './steps/label.ts';
import { pullRequestEnsured, pullRequestFailed } from './steps/pull-request.ts';
import { humanReview, reviewFailed, reviewPosted } from './steps/review.ts';
import { AWAITING_APPROVAL } from './steps/checks-approval.ts';
import type { CheckResult, ChecksSeen, SuiteResult } from './types.ts';

function reply(d: Draft, key: string, body: string, refused?: string): void {
  d.emit({ type: 'reply', runId: d.state.runId, key: `${key}/reply`, thread: d.state.thread, body, ...(refused !== undefined && { refused }) });
}

function refuseUnlessAllowed(d: Draft, ev: CancelRequested | RetryRequested, what: string): boolean {
  if (isAllowed(ev.permission, d.workflow.on.roles)) return false;
  reply(d, ev.key, `@${ev.actor}, ${what} needs ${describeRoles(d.workflow.on.roles)}; yours is \`${ev.permission}\`.`, ev.actor);
  return true;
}

/** Running steps of a kind, in workflow order, optionally only the one named. */
function runningSteps<K extends string>(d: Draft, kind: K, only?: string) {
  return d.workflow.steps.filter(
    (s) => s.kind === kind && (only === undefined || s.id === only) && d.findStep(s.id)?.status === 'running',
  );
}

export function onCancel(d: Draft, ev: CancelRequested): void {
  if (ev.supersededBy) {
    // The host decided (the workflow's concurrency); nobody asked, so nobody is answered.
    return endRun(d, 'cancelled', `superseded by \`${ev.supersededBy.runId}\` for head ${ev.supersededBy.head.slice(0, 7)}`);
  }
  if (refuseUnlessAllowed(d, ev, 'cancelling this run')) return;
  if (d.state.status !== 'running') return reply(d, ev.key, `Run \`${d.state.runId}\` is already ${d.state.status}.`);
  endRun(d, 'cancelled', `cancelled by @${ev.actor}`);
}

/** The step and every step that (transitively) needs it. */
function withDependents(d: Draft, id: string, into: Set<string>): void {
  if (into.has(id)) return;
  into.add(id);
  for (const dep of d.index.dependents.get(id) ?? []) withDependents(d, dep, into);
}

/**
 * `/baton retry <step>`: re-opens a finished step and everything that depends on it,
 * plus the steps the run's end interrupted. Attempt numbers keep counting, the budget
 * already used stays used, and the run branch keeps what was merged. With `--budget`,
 * `--minutes` or `--turns` it first raises those limits, within the workflow's caps
 * (raise.ts); a job a limit stopped resumes from its kept checkpoint (steps/worker.ts).
 */
export function onRetry(d: Draft, ev: RetryRequested): void {
  if (refuseUnlessAllowed(d, ev, 'retrying a step')) return;
  const st = d.findStep(ev.step);
  if (!st) return reply(d, ev.key, `There is no step \`${ev.step}\` in \`${d.workflow.name}\`.`);
  if (st.status === 'running' || st.status === 'waiting') {
    return reply(d, ev.key, `Step \`${ev.step}\` is ${st.status}; only a finished step can be retried.`);
  }
  if (ev.raise) {
    // All of the raise or none of it: a refused part leaves every limit, and the step, as they were.
    const refused = raiseRefusal(d, ev.step, ev.raise);
    if (refused) return reply(d, ev.key, `@${ev.actor}, \`${describeRaise(ev.raise)}\` was refused: ${refused}. Nothing was retried.`);
    applyRaise(d, ev.step, ev.raise);
  }
  const reopen = new Set<string>();
  withDependents(d, ev.step, reopen);
  if (isTerminal(d.state.status)) {
    for (const step of d.workflow.steps) {
      const s = d.step(step.id).status;
      if (s === 'cancelled' || s === 'failed') withDependents(d, step.id, reopen);
    }
  }
  for (const id of reopen) {
    cancelOpenJobs(d, id);
    d.setStep(id, { status: 'waiting', reason: null, outputs: null, finishedAt: null, gate: null, ask: null, note: null, failures: 0 });
  }
  if (d.state.status !== 'running') {
    d.state.status = 'running';
    d.state.reason = null;
    d.state.finishedAt = null;
    aggregateCheck(d);
  }
  d.visible = true;
}

export function onAnswers(d: Draft, ev: QuestionsAnswered): void {
  const step = runningSteps(d, 'ask', ev.step)[0] as AskStep | undefined;
  if (!step) return;
  answer(d, step, ev);
}

export function onApproval(d: Draft, ev: ApprovalGiven): void {
  const step = runningSteps(d, 'approve', ev.step)[0] as ApproveStep | undefined;
  if (!step) return reply(d, ev.key, `@${ev.actor}, nothing in run \`${d.state.runId}\` is waiting for approval.`);
  approve(d, step, ev, ev.key);
}

/**
 * A human review on the run's PR goes to the running review gates; an approving review
 * also approves the running approve steps (silently ignored when the role is not enough).
 */
export function onHumanReview(d: Draft, ev: ReviewSubmitted): void {
  for (const step of runningSteps(d, 'review') as ReviewStep[]) humanReview(d, step, ev);
  if (ev.state !== 'approved') return;
  for (const step of runningSteps(d, 'approve') as ApproveStep[]) {
    if (isAllowed(ev.permission, step.roles)) approve(d, step, ev, ev.key);
  }
}

/**
 * GitHub delivers in no order: a result recorded before the one kept (or a pending one of the
 * same moment as a completed one: a check does not go back to pending within a second) is old news.
 */
function stale(next: CheckResult, kept: CheckResult | undefined): boolean {
  if (kept?.at === undefined || next.at === undefined) return false;
  const a = Date.parse(next.at);
  const b = Date.parse(kept.at);
  if (a !== b) return a < b;
  return next.conclusion === null && kept.conclusion !== null;
}

/**
 * A suite's new state. A running report (conclusion null, from one of its check runs) only
 * matters to a suite held for approval, now approved; it must not undo a conclusion that
 * was handled first (deliveries are handled concurrently), nor record suites never held.
 */
function mergeSuites(prev: ChecksSeen['suites'], reported: SuiteResult[] | undefined): ChecksSeen['suites'] {
  if (!reported?.length) return prev;
  const out = { ...prev };
  for (const s of reported) {
    const was = out[s.id];
    if (s.conclusion === null && was?.conclusion !== AWAITING_APPROVAL) continue;
    out[s.id] = { ...s, label: s.label || (was?.label ?? s.id) };
  }
  return out;
}

/**
 * A report on the commit a gate waits on (decide.ts lets no other through). Only that commit's
 * results are kept: a fix round that moves the head starts from what the new head reports.
 */
export function onChecks(d: Draft, ev: ChecksReported): void {
  const prev: ChecksSeen = d.state.checks[ev.sha] ?? { results: {}, complete: false };
  const results: Record<string, CheckResult> = { ...prev.results };
  for (const c of ev.checks) if (!stale(c, results[c.name])) results[c.name] = c;
  const suites = mergeSuites(prev.suites, ev.suites);
  d.state.checks = { [ev.sha]: { results, complete: prev.complete || ev.complete === true, ...(suites ? { suites } : {}) } };
}

export function onPullRequestEnsured(d: Draft, ev: PullRequestEnsured): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'pull-request') pullRequestEnsured(d, step as PullRequestStep, ev);
}

export function onPullRequestFailed(d: Draft, ev: PullRequestFailed): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'pull-request') pullRequestFailed(d, step as PullRequestStep, ev);
}

export function onLabelsApplied(d: Draft, ev: LabelsApplied): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'label') labelsApplied(d, step as LabelStep, ev);
}

export function onLabelsFailed(d: Draft, ev: LabelsFailed): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'label') labelsFailed(d, step as LabelStep, ev);
}

export function onReviewPosted(d: Draft, ev: ReviewPosted): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'review') reviewPosted(d, step as ReviewStep, ev);
}

export function onReviewFailed(d: Draft, ev: ReviewFailed): void {
  const step = d.stepDef(ev.step);
  if (step?.kind === 'review') reviewFailed(d, step as ReviewStep, ev);
}
