// Constructors and small queries over the run state.
import { STATE_VERSION, TERMINAL_RUN_STATUSES } from './types.ts';
import type { JobKind, JobState, Json, RunState, RunStatus, StepState } from './types.ts';

/** The state before a run exists: `run.requested` turns it into a run. */
export function emptyState(): RunState {
  return {
    version: STATE_VERSION,
    runId: '',
    workflow: '',
    manifestHash: '',
    manifestCommit: '',
    status: 'idle',
    reason: null,
    startedBy: '',
    thread: null,
    startedAt: null,
    finishedAt: null,
    clock: 0,
    inputs: {},
    context: { issue: null, pr: null, repo: null },
    baseBranch: '',
    runBranch: '',
    head: '',
    pr: null,
    steps: [],
    budget: { steps: 0, costUsd: 0 },
    mergeQueue: [],
    merging: null,
    checks: {},
    appliedKeys: [],
  };
}

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status);
}

export function newStepState(id: string): StepState {
  return {
    id,
    status: 'waiting',
    reason: null,
    outputs: null,
    startedAt: null,
    finishedAt: null,
    opening: 0,
    fanOut: false,
    jobs: [],
    attempts: {},
    check: null,
    gate: null,
    ask: null,
    failures: 0,
    note: null,
  };
}

export function newJob(slot: string, kind: JobKind, index: number | null, item: Json, attempt = 0): JobState {
  return {
    slot,
    kind,
    index,
    item,
    status: 'queued',
    attempt,
    failures: 0,
    dispatchedAt: null,
    deadline: null,
    workflowRunId: null,
    url: null,
    base: null,
    commit: null,
    checkpoint: null,
    outputs: null,
    lastError: null,
    costUsd: 0,
    feedback: null,
  };
}

/** A step's state by id (hosts and the record read it; the engine itself uses Draft.step). */
export const stepState = (state: RunState, id: string): StepState | undefined => state.steps.find((s) => s.id === id);

// Copies with every field written in one fixed order: all step (and job) objects then
// share one hidden class, which keeps property reads monomorphic and decide() fast.
export function copyStep(s: StepState): StepState {
  return {
    id: s.id,
    status: s.status,
    reason: s.reason,
    outputs: s.outputs,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    opening: s.opening,
    fanOut: s.fanOut,
    jobs: s.jobs,
    attempts: s.attempts,
    check: s.check,
    gate: s.gate,
    ask: s.ask,
    failures: s.failures,
    note: s.note,
    costUsd: s.costUsd,
    costEstimated: s.costEstimated,
    raised: s.raised,
    costUnmetered: s.costUnmetered,
    delivering: s.delivering,
    delivered: s.delivered,
  };
}

export function copyJob(j: JobState): JobState {
  return {
    slot: j.slot,
    kind: j.kind,
    index: j.index,
    item: j.item,
    status: j.status,
    attempt: j.attempt,
    failures: j.failures,
    dispatchedAt: j.dispatchedAt,
    deadline: j.deadline,
    workflowRunId: j.workflowRunId,
    url: j.url,
    base: j.base,
    commit: j.commit,
    checkpoint: j.checkpoint,
    outputs: j.outputs,
    lastError: j.lastError,
    refused: j.refused,
    costUsd: j.costUsd,
    feedback: j.feedback,
    fallback: j.fallback,
    sandbox: j.sandbox,
    limit: j.limit,
    kept: j.kept,
  };
}

/** A shallow copy of the run state, fields in one fixed order (see copyStep). */
export function copyRun(s: RunState): RunState {
  return {
    version: s.version,
    runId: s.runId,
    workflow: s.workflow,
    manifestHash: s.manifestHash,
    manifestCommit: s.manifestCommit,
    status: s.status,
    reason: s.reason,
    startedBy: s.startedBy,
    thread: s.thread,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    clock: s.clock,
    inputs: s.inputs,
    context: s.context,
    baseBranch: s.baseBranch,
    runBranch: s.runBranch,
    head: s.head,
    pr: s.pr,
    steps: s.steps,
    budget: s.budget,
    mergeQueue: s.mergeQueue,
    merging: s.merging,
    checks: s.checks,
    appliedKeys: s.appliedKeys,
    ...(s.commentsUpTo !== undefined && { commentsUpTo: s.commentsUpTo }),
    breakers: s.breakers,
    checksShown: s.checksShown,
    ...(s.fork && { fork: s.fork }),
    ...(s.trigger !== undefined && { trigger: s.trigger }),
  };
}
