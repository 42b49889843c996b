// What the emulator remembers about Actions: workflows, runs (one record per attempt
// history), jobs, artifacts and logs. Plain data; rendering to GitHub's JSON lives in
// render.ts and behaviour in runner.ts.

export type RunStatus = 'queued' | 'in_progress' | 'completed';
export type RunConclusion = 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped' | 'action_required';
export type JobConclusion = 'success' | 'failure' | 'cancelled' | 'skipped';
export type StepConclusion = 'success' | 'failure' | 'cancelled' | 'skipped';

export interface WorkflowRecord {
  id: number;
  owner: string;
  repo: string;
  path: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface StepRecord {
  number: number;
  name: string;
  status: RunStatus;
  conclusion: StepConclusion | null;
  startedAt: string | null;
  completedAt: string | null;
}

export interface JobRecord {
  id: number;
  runId: number;
  runAttempt: number;
  /** The job's key under `jobs:`. */
  key: string;
  name: string;
  status: RunStatus;
  conclusion: JobConclusion | null;
  createdAt: string;
  startedAt: string;
  completedAt: string | null;
  steps: StepRecord[];
  runnerId: number | null;
  runnerName: string | null;
  /** `runs-on` labels. */
  labels: string[];
  log: string[];
  /** What the steps wrote to GITHUB_STEP_SUMMARY, in order (GitHub shows it on the run page). */
  summary: string;
  outputs: Record<string, string>;
  /** Why it failed, when it did (also in the log). */
  error?: string;
  /** The job's check run (app `github-actions`), when the host keeps check runs. */
  checkRunId?: number;
}

export interface ArtifactRecord {
  id: number;
  owner: string;
  repo: string;
  runId: number;
  name: string;
  /** Paths inside the artifact → content. */
  files: Map<string, Uint8Array>;
  zip: Uint8Array;
  digest: string;
  createdAt: string;
  expiresAt: string;
  headBranch: string;
  headSha: string;
  /** Random part of the download URL: the link works without a token, like GitHub's blob links. */
  downloadKey: string;
}

export interface RunRecord {
  id: number;
  owner: string;
  repo: string;
  workflowId: number;
  path: string;
  /** The workflow's name (the run's `name` in the API). */
  workflowName: string;
  /** Rendered `run-name`, or the workflow name. */
  displayTitle: string;
  runNumber: number;
  runAttempt: number;
  event: string;
  status: RunStatus;
  conclusion: RunConclusion | null;
  headSha: string;
  headBranch: string;
  /** GITHUB_REF: the ref the run was dispatched on, or the one its event sets (refs/pull/<n>/merge…). */
  ref: string;
  /** GITHUB_HEAD_REF / GITHUB_BASE_REF of a run started by pull_request(_target). */
  headRef?: string;
  baseRef?: string;
  /** A pull request's run from a fork (tests/emulator/forks.ts): the fork's repository, its `head_repository`. */
  headRepository?: Record<string, unknown>;
  /**
   * A `pull_request` run: the pull request's head, which the API shows as the run's `head_sha`
   * (GitHub's runs list and PR checks show the head commit), while `headSha` — GITHUB_SHA, what
   * the jobs check out — is the test merge commit (docs "Events that trigger workflows",
   * pull_request: GITHUB_SHA "Last merge commit on the GITHUB_REF branch").
   */
  pullHeadSha?: string;
  inputs: Record<string, string | boolean | number>;
  /** The user object of who dispatched, as the API renders it. */
  actor: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  runStartedAt: string;
  checkSuiteId: number;
  /** Jobs of every attempt; the API shows the latest attempt's by default. */
  jobs: JobRecord[];
  /** Set by the cancel endpoint; steps with `if: always()` or `cancelled()` still run. */
  cancelRequested: boolean;
}

export class ActionsStore {
  readonly workflows = new Map<string, WorkflowRecord>();
  readonly runs = new Map<number, RunRecord>();
  readonly jobs = new Map<number, JobRecord>();
  readonly artifacts = new Map<number, ArtifactRecord>();
  private readonly runNumbers = new Map<number, number>();
  private nextId: number;

  constructor(firstId = 1000) {
    this.nextId = firstId;
  }

  id(): number {
    return this.nextId++;
  }

  /** Workflows get a stable id per repository and path, the first time they are seen. */
  workflow(owner: string, repo: string, path: string, name: string): WorkflowRecord {
    const key = `${owner}/${repo}:${path}`.toLowerCase();
    let wf = this.workflows.get(key);
    const now = new Date().toISOString();
    if (!wf) {
      wf = { id: this.id(), owner, repo, path, name, createdAt: now, updatedAt: now };
      this.workflows.set(key, wf);
    } else if (wf.name !== name) {
      wf.name = name;
      wf.updatedAt = now;
    }
    return wf;
  }

  workflowById(owner: string, repo: string, id: number): WorkflowRecord | undefined {
    for (const wf of this.workflows.values()) {
      if (wf.id === id && sameRepo(wf, owner, repo)) return wf;
    }
    return undefined;
  }

  nextRunNumber(workflowId: number): number {
    const n = (this.runNumbers.get(workflowId) ?? 0) + 1;
    this.runNumbers.set(workflowId, n);
    return n;
  }

  runsOf(owner: string, repo: string): RunRecord[] {
    return [...this.runs.values()].filter((r) => sameRepo(r, owner, repo)).sort((a, b) => b.id - a.id);
  }

  /** Forgets a run with its jobs and artifacts (a deleted or expired run). */
  deleteRun(runId: number): void {
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    for (const job of run.jobs) this.jobs.delete(job.id);
    for (const [id, artifact] of this.artifacts) if (artifact.runId === runId) this.artifacts.delete(id);
  }

  artifactsOf(owner: string, repo: string, runId?: number): ArtifactRecord[] {
    return [...this.artifacts.values()]
      .filter((a) => sameRepo(a, owner, repo) && (runId === undefined || a.runId === runId))
      .sort((a, b) => b.id - a.id);
  }
}

export function sameRepo(r: { owner: string; repo: string }, owner: string, repo: string): boolean {
  return r.owner.toLowerCase() === owner.toLowerCase() && r.repo.toLowerCase() === repo.toLowerCase();
}

/** Jobs of the run's latest attempt, in the order they were created. */
export function latestJobs(run: RunRecord): JobRecord[] {
  return run.jobs.filter((j) => j.runAttempt === run.runAttempt);
}
