// Events: everything that can happen to a run, as hosts report it. Each carries a
// host-derived `key` (delivery id, workflow run id + attempt, comment id…) so that a
// redelivery is recognised, and `at` (epoch ms), the only clock the engine has.
import type { Role } from '../manifest/types.ts';
import type { CheckResult, Json, LimitRaise, ReviewComment, StopLimit, SuiteResult, Thread } from './types.ts';
import type { ReviewEvent } from './commands.ts';
import type { SandboxReport } from './sandbox.ts';
import type { TriggerKind } from './roles.ts';

interface EventBase {
  key: string;
  at: number;
  /**
   * A comment's event that the host applies only after every older comment meant for the run
   * (comments' ids grow with their posting): once it is applied, each comment up to this id
   * is settled (RunState.commentsUpTo), and an event carrying an id at or below it is one
   * applied already. Actions-only's catch-up (action/catch-up.ts) sets it.
   */
  commentsUpTo?: number;
}

/** Identifies one dispatched attempt; hosts copy these from the dispatch-worker command. */
export interface JobRef {
  step: string;
  slot: string;
  attempt: number;
}

/** Who did something, with the repository permission the host looked up. */
export interface Actor {
  actor: string;
  permission: Role | 'none';
}

export interface Usage {
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** costUsd was estimated from token counts (the CLI reports none, e.g. codex). */
  costEstimated?: boolean;
  /** Why no cost could be metered: the CLI keeps its model key (copilot), so its traffic does not pass the proxy's meter. */
  costUnmetered?: CostUnmetered;
}

/** Why an attempt's cost is not known (record/cost.ts says it in words). */
export type CostUnmetered = 'key-in-agent';
export const COST_UNMETERED: readonly CostUnmetered[] = ['key-in-agent'];

/** A label, a `/baton <workflow>` comment, an MCP or CLI call. Creates the run. */
export interface RunRequested extends EventBase, Actor {
  type: 'run.requested';
  runId: string;
  workflow: string;
  manifestHash: string;
  manifestCommit: string;
  /** Raw inputs (strings from `key=value` words, or typed from MCP/CLI). */
  inputs: Record<string, Json>;
  thread: Thread | null;
  issue?: Json;
  pr?: Json;
  repo?: Json;
  baseBranch: string;
  /**
   * Head of the base branch: the run branch starts here. A fork run's head is the fork's
   * commit, which workers check out by sha and which never becomes a branch: its run branch
   * starts at `manifestCommit`, a commit of the default branch (start.ts).
   */
  baseSha: string;
  /**
   * Set when an event or schedule the manifest subscribes to started the run (absent: a
   * person's label, command, MCP or CLI call). The actor is then the event's author, admitted
   * by `on.<event>.authors` rather than `on.roles`.
   */
  trigger?: TriggerKind;
  /**
   * The run reads a fork's pull request (`on.pull_request.forks: review`): every attempt
   * requires the sandbox and hands the agent no secret but its model key. Absent otherwise.
   */
  fork?: true;
  /**
   * What was left of `budget.per-day.max-cost-usd` in the run's pool when it was let start
   * (app/daily-budget.ts): the run's attempts may spend no more (budget.ts costCap). Absent: no
   * daily cost cap (or a host that reads no ledger).
   */
  dayCostLeftUsd?: number;
}

/** The host dispatched a worker (reported back with the Actions run id and link). */
export interface WorkerDispatched extends EventBase, JobRef {
  type: 'worker.dispatched';
  workflowRunId?: number;
  url?: string;
}

/** A worker finished and uploaded its result. */
export interface WorkerFinished extends EventBase, JobRef {
  type: 'worker.finished';
  outputs: Json;
  /** Commit holding its changes (the merge puts it on the run branch); null/absent when nothing changed. */
  commit?: string | null;
  usage?: Usage;
  /** What the sandbox enforced and refused for the attempt (the worker's result, checked). */
  sandbox?: SandboxReport;
}

/**
 * Why an attempt failed before its agent could work at all: the backend refused the
 * credentials, was out of quota or rate-limited, could not be reached or was down, or its CLI
 * was missing or crashed before doing anything. Only these count towards switching an agent
 * to its fallback (breaker.ts); failures of the work itself never do.
 */
export type InfrastructureCause = 'authentication' | 'quota' | 'network' | 'unavailable' | 'cli-missing' | 'cli-crashed';
export const INFRASTRUCTURE_CAUSES: readonly InfrastructureCause[] = ['authentication', 'quota', 'network', 'unavailable', 'cli-missing', 'cli-crashed'];

/**
 * A worker crashed, timed out in its runner, was cancelled outside baton, its run is gone
 * (deleted or expired), or it could not be dispatched; or its result was `refused`: written
 * by no one, because baton's rules (protected paths, symlinks leaving the repository) or
 * GitHub's (workflow files need the `workflows` permission) forbid it. `error` says what and why.
 */
export interface WorkerFailed extends EventBase, JobRef {
  type: 'worker.failed';
  reason: 'crashed' | 'timed-out' | 'cancelled' | 'gone' | 'dispatch-failed' | 'refused';
  error?: string;
  /** Partial work the worker uploaded, kept as a commit on the step branch. */
  checkpoint?: string | null;
  usage?: Usage;
  /** Set when the agent's backend could not work at all (not the work failing): see InfrastructureCause. */
  infrastructure?: InfrastructureCause;
  /** What the sandbox enforced and refused for the attempt, when the worker reported it. */
  sandbox?: SandboxReport;
  /** The limit that stopped the agent (its turns, its time, its cost): the attempt can be resumed from `checkpoint` with it raised. */
  limit?: StopLimit;
  /** The files `checkpoint` holds (paths the agent chose: hostile), read back from where the host kept it. */
  kept?: string[];
}

export interface MergeCompleted extends EventBase, JobRef {
  type: 'merge.completed';
  /** New head of the run branch. */
  head: string;
}

export interface MergeConflicted extends EventBase, JobRef {
  type: 'merge.conflicted';
  files: string[];
  /** The branch the host kept the conflicting commit on, for people to look at; absent: none. */
  branch?: string;
}

/** The host refused the merge for good (a ruleset, a protected branch): the attempt fails with why. */
export interface MergeRefused extends EventBase, JobRef {
  type: 'merge.refused';
  error: string;
}

/**
 * The host brought the run branch up to date with the default branch because GitHub refused it
 * as it was (the workflow-file rule): the branch's new tip holds everything of `from`, and the
 * head moves on to it.
 */
export interface RunBranchUpdated extends EventBase {
  type: 'run-branch.updated';
  from: string;
  head: string;
}

/** GitHub refused the run branch even brought up to date (the run changes workflow files itself, or conflicts with the default branch): the run fails, saying why. */
export interface RunBranchRefused extends EventBase {
  type: 'run-branch.refused';
  error: string;
}

/** Someone replied to the questions of an `ask` step. */
export interface QuestionsAnswered extends EventBase, Actor {
  type: 'questions.answered';
  /** Which ask step; may be omitted when only one is waiting. */
  step?: string;
  /** By position; null or absent entries are not answered by this reply. */
  answers: (string | null)[];
}

/** A human submitted a review on the run's PR. */
export interface ReviewSubmitted extends EventBase, Actor {
  type: 'review.submitted';
  state: 'approved' | 'changes_requested' | 'commented';
  body: string;
  comments: ReviewComment[];
}

/** Check runs or commit statuses seen on a commit (one or several at a time). */
export interface ChecksReported extends EventBase {
  type: 'checks.reported';
  sha: string;
  checks: CheckResult[];
  /** Every check suite on this commit has completed (lets `names: ["*"]` decide). */
  complete?: boolean;
  /** Check suites whose state changed (one waiting for approval has no check runs to tell it). */
  suites?: SuiteResult[];
}

/** `/baton approve`. */
export interface ApprovalGiven extends EventBase, Actor {
  type: 'approval.given';
  step?: string;
}

export interface PullRequestEnsured extends EventBase {
  type: 'pull-request.ensured';
  step: string;
  number: number;
  url: string;
  /** How the PR differs from what the step asked for, and why (a ready PR where drafts are refused). */
  note?: string;
}

export interface PullRequestFailed extends EventBase {
  type: 'pull-request.failed';
  step: string;
  error: string;
}

/**
 * The host added a label step's labels: `applied` are the repository's labels it added (in the
 * repository's spelling), `unknown` the names the repository has no label for (not created).
 * `refused`: names the host would not add (a label that starts a workflow). `note`: why nothing
 * was added (a run with no issue to label, a fork run).
 */
export interface LabelsApplied extends EventBase {
  type: 'labels.applied';
  step: string;
  applied: string[];
  unknown: string[];
  refused?: string[];
  note?: string;
}

/** GitHub refused to add the labels (over its limit of labels per issue, a missing permission). */
export interface LabelsFailed extends EventBase {
  type: 'labels.failed';
  step: string;
  error: string;
}

/** The host posted a review step's review (a post-review command with `confirm`): GitHub's id and link for it. */
export interface ReviewPosted extends EventBase {
  type: 'review.posted';
  step: string;
  /** The reviewer attempt whose review it is (from the command). */
  attempt: number;
  reviewId: number;
  /** Link to the review; empty where the host has none (a local run). */
  url: string;
  event: ReviewEvent;
}

/** GitHub refused the review for good: `error` says what it answered. */
export interface ReviewFailed extends EventBase {
  type: 'review.failed';
  step: string;
  attempt: number;
  error: string;
}

/**
 * The host read a step's deliverable back (a read-back command): `missing` names what it did
 * not find, in words for the record (empty: everything is there); `found` says what it found.
 */
export interface DeliverableRead extends EventBase {
  type: 'deliverable.read';
  step: string;
  /** From the command: which opening of the step and which of its read-backs this answers. */
  opening: number;
  seq: number;
  missing: string[];
  found?: string;
}

/** `/baton cancel`, or a newer run of the same workflow on the thread (`concurrency.cancel-in-progress`). */
export interface CancelRequested extends EventBase, Actor {
  type: 'cancel.requested';
  /**
   * The run that replaces this one, and the head it runs on (a commit sha): the manifest's act,
   * not the actor's, so no role is asked and a run already ended is left without a reply.
   */
  supersededBy?: { runId: string; head: string };
}

/** `/baton retry <step> [--budget +$N] [--minutes +N] [--turns +N]`, `baton resume`, MCP's `baton_resume`. */
export interface RetryRequested extends EventBase, Actor {
  type: 'retry.requested';
  step: string;
  /** Limits raised for the step's next attempts (within the workflow's `budget.raise-to`: raise.ts). */
  raise?: LimitRaise;
}

/** Nothing happened but time went by (a scheduled tick): deadlines and budgets are checked. */
export interface TimePassed extends EventBase {
  type: 'time.passed';
}

export type RunEvent =
  | RunRequested
  | WorkerDispatched
  | WorkerFinished
  | WorkerFailed
  | MergeCompleted
  | MergeConflicted
  | MergeRefused
  | RunBranchUpdated
  | RunBranchRefused
  | QuestionsAnswered
  | ReviewSubmitted
  | ChecksReported
  | ApprovalGiven
  | PullRequestEnsured
  | PullRequestFailed
  | LabelsApplied
  | LabelsFailed
  | ReviewPosted
  | ReviewFailed
  | DeliverableRead
  | CancelRequested
  | RetryRequested
  | TimePassed;

export type RunEventType = RunEvent['type'];
