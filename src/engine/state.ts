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
    steps: {},
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

export function newStepState(): StepState {
  return {
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

/** Jobs that occupy a runner right now. */
export const isJobRunning = (job: JobState): boolean => job.status === 'running';

/** Jobs not yet finished one way or the other. */
export const isJobOpen = (job: JobState): boolean =>
  job.status === 'queued' || job.status === 'running' || job.status === 'merge-queued' || job.status === 'merging';
