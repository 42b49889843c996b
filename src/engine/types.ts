// The run state: everything the engine knows about one run, as plain JSON so it can
// live in the status comment and be replayed. The workflow itself is not stored (only
// its hash and commit): hosts reload it and `decide` receives it with every event.
import type { TriggerKind } from './roles.ts';
import type { Json } from '../manifest/expressions.ts';
import type { CostUnmetered, InfrastructureCause, JobRef } from './events.ts';
import type { Delivering } from './deliverable.ts';

export type { Json };

/** Bumped whenever the shape of RunState changes incompatibly; decodeState refuses others. */
export const STATE_VERSION = 1;

/** `idle` is the empty state before a run exists (or after a refused start). */
export type RunStatus = 'idle' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'stopped';
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'stopped'];

/** Step statuses, also what `steps.<id>.status` reads in expressions. */
export type StepStatus = 'waiting' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/** A step that counts as finished for the steps that need it. */
export const DONE_STEP_STATUSES: readonly StepStatus[] = ['succeeded', 'skipped'];

/** What a dispatched worker job does: a step's own work, a review, or a fix round. */
export type JobKind = 'agent' | 'run' | 'review' | 'fix';

export type JobStatus =
  | 'queued' // waiting for a free slot (max-parallel) or not yet dispatched
  | 'running' // dispatched, no result yet
  | 'merge-queued' // result valid, waiting for its turn to merge into the run branch
  | 'merging' // merge command sent
  | 'succeeded'
  | 'failed'
  | 'cancelled';

/**
 * One unit of worker work inside a step: a fan-out item, the single job of a plain
 * step, a reviewer pass or a fix round. `slot` names it stably ('0', '3', 'review',
 * 'fix-2'); `attempt` only ever grows so that dispatch keys never repeat, even across
 * `/baton retry`.
 */
export interface JobState {
  slot: string;
  kind: JobKind;
  /** Fan-out index, or null for a step that is not fanned out. */
  index: number | null;
  item: Json;
  status: JobStatus;
  /** Current (latest) attempt number; 0 before the first dispatch. */
  attempt: number;
  /** Failed attempts since this job was (re)opened, compared with `retries`. */
  failures: number;
  dispatchedAt: number | null;
  /** Epoch ms after which the running attempt is timed out; null = no limit. */
  deadline: number | null;
  workflowRunId: number | null;
  url: string | null;
  /** The commit start point of the current attempt. */
  base: string | null;
  /** Commit the worker produced (to be merged into the run branch), if any. */
  commit: string | null;
  /** Partial work kept from a timed-out or crashed attempt; the next attempt starts there. */
  checkpoint: string | null;
  outputs: Json;
  /** Why the last attempt failed (validation error, crash, conflict); sent with the retry. */
  lastError: string | null;
  /** The last attempt's result was refused (WorkerFailed `refused`, MergeRefused), not failed: the record says "refused". */
  refused?: boolean;
  costUsd: number;
  /** Review comments or failing check output given to a fix round. */
  feedback: Feedback | null;
  /** The agent the current attempt runs when it is not the step's own (its fallback, breaker.ts). */
  fallback?: string | null;
  /** What the sandbox did for the latest finished attempt, in one line (sandbox-summary.ts); absent: not reported. */
  sandbox?: string | null;
  /** The limit (turns, time, cost) that stopped the last attempt; absent or null: none did. */
  limit?: StopLimit | null;
  /** The files of `checkpoint` (as the host listed them, at most KEPT_FILES_SHOWN) and how many there were: what the record says was kept. */
  kept?: { files: string[]; total: number } | null;
}

/** A limit that stops an agent before it finishes: its turns, its time, its cost. */
export type StopLimit = 'turns' | 'time' | 'cost';
export const STOP_LIMITS: readonly StopLimit[] = ['turns', 'time', 'cost'];

/** How much a `/baton retry … --budget/--minutes/--turns` adds to a limit (each absent: not raised). */
export interface LimitRaise {
  costUsd?: number;
  minutes?: number;
  turns?: number;
}

export interface ReviewComment {
  path?: string;
  /** The (last) line commented on, in the new version of the file. */
  line?: number;
  /** First line of a multi-line comment (≤ line); absent: the comment is on `line` alone. */
  start_line?: number;
  /** Replacement text for the commented lines: the host renders it as a suggested change. */
  suggestion?: string;
  body: string;
}

export interface CheckResult {
  name: string;
  /** null while the check is still pending. */
  conclusion: string | null;
  summary?: string;
  url?: string;
  /** When GitHub recorded this result (ISO time): deliveries arrive in no order, the newest result counts. */
  at?: string;
}

/** What a fix round is asked to address. */
export interface Feedback {
  source: 'review' | 'human-review' | 'checks';
  summary: string;
  by?: string;
  comments: ReviewComment[];
  checks: CheckResult[];
}

/** Progress of a review or checks gate. */
export interface GateState {
  /** `posting`: a review gate waits for the host to confirm its review on a pull request it did not open. */
  phase: 'reviewing' | 'posting' | 'waiting-checks' | 'fixing';
  /** Fix rounds started so far (≤ max-rounds). */
  round: number;
  /** Checks gate: epoch ms after which waiting for checks fails the step. */
  deadline: number | null;
  /** A human's "changes requested" that arrived during a fix round, handled next. */
  pendingFeedback: Feedback | null;
}

export interface AskState {
  questions: string[];
  answers: (string | null)[];
  answeredBy: string[];
  postedAt: number;
  deadline: number | null;
}

export interface StepState {
  id: string;
  status: StepStatus;
  /** Why the step failed, was skipped or cancelled; shown in the record. */
  reason: string | null;
  outputs: Json;
  startedAt: number | null;
  finishedAt: number | null;
  /** How many times the step has been started (1, then +1 per `/baton retry`). */
  opening: number;
  /** Whether the step fans out (outputs become an array of the items' outputs). */
  fanOut: boolean;
  jobs: JobState[];
  /** Highest attempt number used per job slot; never reset. */
  attempts: Record<string, number>;
  /**
   * The check run currently representing this step, if one was begun. `startedAt`: when the
   * work it reports on began (absent in records written before it was kept).
   */
  check: { externalId: string; attempt: number; startedAt?: number | null } | null;
  gate: GateState | null;
  ask: AskState | null;
  /** Failed host actions (pull-request) since the step opened, compared with `retries`. */
  failures: number;
  /** Rendered text shown while waiting (approve message, PR title). */
  note: string | null;
  /** What the step's worker attempts cost (every attempt, retries and fix rounds too); absent: none reported a cost. */
  costUsd?: number;
  /** Part of costUsd was estimated from token counts (codex). */
  costEstimated?: boolean;
  /** What retries raised this step's attempt time limit (minutes) and its agent's turn limit by, in all; absent: nothing. */
  raised?: { minutes?: number; turns?: number };
  /** Why an attempt's cost could not be metered (no attempt reported one). */
  costUnmetered?: CostUnmetered;
  /** The step's result, held while the host reads its deliverable back (deliverable.ts); absent or null otherwise. */
  delivering?: Delivering | null;
  /** What the host found when it read the step's deliverable back (shown in the record); absent: nothing was read back. */
  delivered?: string;
}

export interface BudgetUsed {
  /** Worker attempts dispatched (what max-steps limits). */
  steps: number;
  costUsd: number;
  /** Part of costUsd is an estimate from token counts (absent: every figure was reported). */
  costEstimated?: boolean;
  /** What retries raised the run's `max-cost-usd` by, in all (raise.ts); absent: nothing. */
  raisedUsd?: number;
  /** What was left of the day's `per-day.max-cost-usd` when the run started (absent: no daily cost cap). */
  dayCostLeftUsd?: number;
}

/**
 * A check suite (or, in Actions-only mode, a workflow run) on a commit: `conclusion` is null
 * while it runs. A suite that concluded `action_required` with no check runs is how GitHub
 * shows workflow runs waiting for a person's approval.
 */
export interface SuiteResult {
  /** The host's id of the suite (stable across its re-runs). */
  id: string;
  /** What to call it in messages (`workflow CI`, `GitHub Actions`). */
  label: string;
  conclusion: string | null;
}

/** Check results seen for one commit. */
export interface ChecksSeen {
  results: Record<string, CheckResult>;
  /** The host saw every check suite on this commit complete (needed for `names: ["*"]`). */
  complete: boolean;
  /** Check suites seen on this commit, by id (absent in records written before they were kept). */
  suites?: Record<string, SuiteResult>;
}

export interface Thread {
  kind: 'issue' | 'pull';
  number: number;
}

export interface RunState {
  version: typeof STATE_VERSION;
  runId: string;
  workflow: string;
  manifestHash: string;
  /** Commit of the default branch the manifest was read from. */
  manifestCommit: string;
  status: RunStatus;
  /** Why the run failed, stopped or was cancelled. */
  reason: string | null;
  startedBy: string;
  thread: Thread | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** Latest `at` seen: time never runs backwards for the engine, even on reordered events. */
  clock: number;
  inputs: Record<string, Json>;
  /** Expression contexts given at the start: issue, pr, repo. */
  context: { issue: Json; pr: Json; repo: Json };
  baseBranch: string;
  runBranch: string;
  /** Head commit of the run branch, as last reported. */
  head: string;
  /** The PR baton opened for the run. */
  pr: { number: number; url: string } | null;
  /** One entry per workflow step, in the workflow's order (an array: cheap to copy per event). */
  steps: StepState[];
  budget: BudgetUsed;
  /** Jobs (as `step/slot`) waiting to be merged into the run branch, in order. */
  mergeQueue: string[];
  /** The attempt currently being merged: merges are serialised so heads come in a known order. */
  merging: { step: string; slot: string; attempt: number } | null;
  /** Check results by commit sha (only a few recent commits are kept). */
  checks: Record<string, ChecksSeen>;
  /**
   * Check runs shown in progress, by external id → the commit they are on. When the run moves on
   * to a newer commit, the one left on the old commit is completed (checks-runs.ts), so no commit
   * (the default branch's, where a run starts) keeps a check in progress for ever. Absent in
   * records written before it existed.
   */
  checksShown?: Record<string, string>;
  /** Keys of applied events, most recent last, bounded. */
  appliedKeys: string[];
  /**
   * Every comment meant for this run with an id up to this one is settled: applied, or judged
   * to ask nothing of it (EventBase.commentsUpTo). Unbounded where `appliedKeys` forgets: an old
   * comment is never applied twice, whatever came since. Absent until a comment sets it.
   */
  commentsUpTo?: number;
  /** Circuit breakers by agent name (breaker.ts); absent until an agent's backend first fails to work. */
  breakers?: Record<string, BreakerState>;
  /** A fork's pull request is the run's code (RunRequested.fork): absent for every other run. */
  fork?: true;
  /** What started the run when no person asked (RunRequested.trigger): absent for every other run. */
  trigger?: TriggerKind;
}

/**
 * Whether an agent's backend is taking attempts (closed), is skipped for its fallback during a
 * cooldown after repeated infrastructure failures (open), or is being tried again once after
 * the cooldown (half-open).
 */
export interface BreakerState {
  status: 'closed' | 'open' | 'half-open';
  /** Infrastructure failures in a row (a finished attempt resets it; work failures leave it). */
  failures: number;
  /** What the last infrastructure failure was. */
  cause: InfrastructureCause | null;
  /** When the breaker last opened, and (open) when its cooldown ends. */
  openedAt: number | null;
  until: number | null;
  /** Half-open: the attempt trying the agent again, null until one is dispatched. */
  probe: JobRef | null;
  /** When it last closed again after being open. */
  closedAt: number | null;
}

export const APPLIED_KEYS_LIMIT = 500;
