// Commands: what the engine asks a host to do. Each carries everything needed to act
// without deciding anything, and a `key` that is stable for the effect it asks for, so
// that a host can look for an earlier execution before repeating it (docs/architecture.md §4).
import type { AgentSpec, JsonSchema, Role } from '../manifest/types.ts';
import type { Feedback, JobKind, Json, ReviewComment, RunStatus, StopLimit, Thread } from './types.ts';
import type { SandboxRequest } from './sandbox.ts';
import type { Deliverable } from './deliverable.ts';

interface CommandBase {
  runId: string;
  key: string;
}

/** Create `baton/<run-id>` at the base commit (once, when the run starts). */
export interface CreateRunBranch extends CommandBase {
  type: 'create-run-branch';
  branch: string;
  sha: string;
}

/**
 * Start a worker job (workflow_dispatch of the worker workflow, or a local process).
 * Follow-up events: worker.dispatched (optional, gives the link), then exactly one of
 * worker.finished / worker.failed for this step+slot+attempt.
 */
export interface DispatchWorker extends CommandBase {
  type: 'dispatch-worker';
  workflow: string;
  step: string;
  slot: string;
  index: number | null;
  item: Json;
  attempt: number;
  kind: JobKind;
  /** `baton <run> <step> #<attempt>`: the Actions run-name a host searches for after a crash. */
  runName: string;
  /** Named backend and its resolved spec (agent, review, fix of an agent step). */
  agent: string | null;
  backend: AgentSpec | null;
  /** Set when `agent` is a fallback: the agent the step names, set aside while its backend is down. */
  fallbackFor?: string;
  /** Rendered prompt (agent, review, fix). */
  prompt: string | null;
  /** Rendered shell command (run steps, or a fix round of a run step). */
  command: string | null;
  /** JSON Schema the worker's result must match; null = anything. */
  outputsSchema: JsonSchema | null;
  /** Commit the worker starts from: the run branch head, or a checkpoint to continue. */
  base: string;
  /**
   * The commit agent configuration is taken from: the default branch's commit the run's
   * manifests were read from (RunState.manifestCommit), never a pull request's head or a
   * fork's. Before the agent starts, the worker puts every agent configuration path back as
   * this commit has it (src/agents/restore-agent-config.ts). Absent in tasks of older
   * versions (a fork run's worker then refuses to start the agent).
   */
  runBase?: string;
  /** True when `base` is a checkpoint of an earlier attempt: the prompt says it continues. */
  resume: boolean;
  /** The limit that stopped the attempt `base` is the checkpoint of (the prompt says so); absent: none did. */
  stoppedBy?: StopLimit;
  /** The step's (or fix round's) branch, which keeps a failed attempt's checkpoint; null for non-writing work. */
  branch: string | null;
  writes: boolean;
  env: Record<string, string>;
  timeoutMinutes: number | null;
  /** Why the previous attempt failed (e.g. the output validation error), for the re-prompt. */
  previousError: string | null;
  /** Review comments or failing check output for a fix round. */
  feedback: Feedback | null;
  /** What the agent (or a run step's command) may reach and how it is fenced (src/engine/sandbox.ts, resolved by sandbox-request.ts); absent in tasks of older versions. */
  sandbox?: SandboxRequest | null;
  /**
   * What this attempt may spend on its model, and what that figure is (budget.ts costCap): the
   * sandbox's proxy refuses the agent's model requests past it. Null (or absent, older
   * versions): no cap, the spend is metered only.
   */
  costCap?: { usd: number; what: string } | null;
}

/** Cancel a running worker (by workflow run id when known, else by its run-name). */
export interface CancelWorker extends CommandBase {
  type: 'cancel-worker';
  step: string;
  slot: string;
  attempt: number;
  runName: string;
  workflowRunId: number | null;
}

/**
 * Merge a step's commit into the run branch. Follow-up: merge.completed, merge.conflicted or
 * merge.refused. The commit need not be on `branch`: a host may write that branch only when
 * someone needs it (a conflict to look at).
 */
export interface MergeStepBranch extends CommandBase {
  type: 'merge-step-branch';
  step: string;
  slot: string;
  attempt: number;
  /** The step's (or fix round's) branch: where the commit is kept if it conflicts. */
  branch: string;
  /** The commit to merge (the worker's result). */
  commit: string;
  into: string;
  message: string;
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed';
export type CheckConclusion = 'success' | 'failure' | 'cancelled' | 'skipped' | 'neutral' | 'timed_out';

/** Create or update (by external id) a check run. */
export interface UpsertCheckRun extends CommandBase {
  type: 'check-run';
  name: string;
  externalId: string;
  headSha: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  title: string;
  summary: string;
  detailsUrl: string | null;
  /** Epoch ms the work it reports on began: a check run created already completed still shows its duration. */
  startedAt: number | null;
}

/** Re-render the status comment from the new state. At most one per decide call. */
export interface RenderRecord extends CommandBase {
  type: 'render-record';
}

/** Post an ask step's questions where the run lives. Follow-up: questions.answered. */
export interface PostQuestions extends CommandBase {
  type: 'post-questions';
  step: string;
  thread: Thread | null;
  questions: string[];
  /** Who may answer. */
  roles: Role[];
  deadline: number | null;
}

/** GitHub's review events, as the reviews API takes them. */
export type ReviewEvent = 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';

/**
 * Post a reviewer agent's review on a pull request: the run's own (always a COMMENT review:
 * GitHub refuses approvals and change requests from a PR's own author, and baton opened it)
 * or the one the run is bound to, with the event the step's `verdicts` allow.
 * Follow-up when `confirm`: review.posted or review.failed for this step and attempt.
 */
export interface PostReview extends CommandBase {
  type: 'post-review';
  step: string;
  /** The reviewer attempt whose review this is. */
  attempt: number;
  prNumber: number;
  approved: boolean;
  event: ReviewEvent;
  /** The commit the reviewer looked at (the run's head). */
  commit: string;
  body: string;
  comments: ReviewComment[];
  /** The step waits for the host to say the review was posted (a pull request the run did not open). */
  confirm: boolean;
  /** The run reads a fork's pull request: the host posts a COMMENT review whatever `event` says. */
  fork?: true;
}

/** Open or update the run's PR. Follow-up: pull-request.ensured or pull-request.failed. */
export interface EnsurePullRequest extends CommandBase {
  type: 'ensure-pull-request';
  step: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  labels: string[];
  /**
   * `on.pull_request.push-to-head`: instead of opening a pull request, fast-forward `base` (the
   * head branch of pull request `pushToHead`, in this repository) to `head`'s commit; answered
   * with pull-request.ensured (that pull request) or pull-request.failed (not a fast-forward).
   */
  pushToHead?: number;
}

/**
 * Add a label step's labels to the run's thread: only those the repository has (matched without
 * case, sent in its spelling); never create one. Follow-up: labels.applied or labels.failed.
 * `thread` null (a local run): nothing to label, answered with labels.applied and a note.
 */
export interface ApplyLabels extends CommandBase {
  type: 'apply-labels';
  step: string;
  thread: Thread | null;
  /** Distinct names (compared without case), at most MAX_LABELS, each one the step's `labels` lists; an agent may have chosen them. */
  labels: string[];
  /** The run reads a fork's pull request: the host adds nothing, whatever the manifest says. */
  fork?: true;
}

/** Dispatch the CI workflow on the run branch (a checks step's `workflow:`). */
export interface DispatchChecksWorkflow extends CommandBase {
  type: 'dispatch-checks-workflow';
  step: string;
  workflowFile: string;
  ref: string;
  sha: string;
}

/**
 * Read the CI already reported on the commit a `checks` gate starts waiting for (the run's own
 * suites' check runs and the commit's statuses). Reports that arrive while no gate waits on their
 * commit change nothing and cost no write (decide.ts); this read is how a gate learns what came
 * before it. Follow-up: checks.reported for `sha`, when anything was reported.
 */
export interface ReadChecks extends CommandBase {
  type: 'read-checks';
  step: string;
  sha: string;
  /** The run branch: only CI of the run's own suites counts (suite-owner.ts). */
  branch: string;
}

/**
 * Read a step's deliverable back from GitHub (or the disk) before the step is recorded done
 * (deliverable.ts). Follow-up: always deliverable.read, naming what was not found.
 */
export interface ReadBack extends CommandBase {
  type: 'read-back';
  step: string;
  opening: number;
  seq: number;
  deliverable: Deliverable;
}

/** Answer in the run's thread: a refusal, a usage hint, an approval request. */
export interface Reply extends CommandBase {
  type: 'reply';
  thread: Thread | null;
  body: string;
  /**
   * The login a refusal answers (someone without the role): hosts answer such a person only
   * a few times per thread and hour, so that a stranger's comments cannot buy replies.
   */
  refused?: string;
}

/** The run reached a terminal status: the host finalises the record (reactions, labels). */
export interface FinishRun extends CommandBase {
  type: 'finish-run';
  status: RunStatus;
  reason: string | null;
}

export type Command =
  | CreateRunBranch
  | DispatchWorker
  | CancelWorker
  | MergeStepBranch
  | UpsertCheckRun
  | RenderRecord
  | PostQuestions
  | PostReview
  | EnsurePullRequest
  | ApplyLabels
  | DispatchChecksWorkflow
  | ReadChecks
  | ReadBack
  | Reply
  | FinishRun;

export type CommandType = Command['type'];
