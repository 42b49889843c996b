// Shared shapes of the runner: its options, and what a step implementation receives.
import type { Contexts, StatusState } from './expressions.ts';
import type { ActionsHost } from './host.ts';
import type { JobRecord, RunRecord } from './records.ts';
import type { JobSandbox } from './sandbox.ts';
import type { ArtifactService } from './steps/artifacts.ts';
import type { JobDef, StepDef, WorkflowFile } from './workflow-file.ts';

export interface RunnerOptions {
  /**
   * Where `uses:` of a non-built-in action finds its code: `'owner/baton': '/abs/dir'`
   * (any `@ref` matches; `owner/repo/sub` looks in `<dir>/sub`). A key with `@ref` only
   * matches that ref.
   */
  actions?: Record<string, string>;
  /** The `secrets` context of every run (GITHUB_TOKEN is added per job). */
  secrets?: Record<string, string>;
  /** The `vars` context. */
  vars?: Record<string, string>;
  /** Directory for run workspaces; default: a fresh temp dir, removed by `close()`. */
  workRoot?: string;
  /** Keep workspaces after runs finish (debugging). */
  keepWorkspaces?: boolean;
  /** Milliseconds in a `timeout-minutes` minute; tests shrink it. Default 60000. */
  minuteMs?: number;
  /** Extra environment for every step process (e.g. a fake agent CLI on PATH). */
  env?: Record<string, string>;
  /** Node binary for node actions; default the one running the emulator. */
  nodePath?: string;
  /**
   * Arguments put before the entry point, e.g. `['--import', <absolute URL of tsx>]` to
   * run an action's TypeScript source without bundling it (steps run in the workspace,
   * where a bare `tsx` does not resolve).
   */
  nodeArgs?: string[];
  /**
   * Start event-triggered runs for every webhook the emulator emits (`runner.trigger`),
   * except events caused by a job's GITHUB_TOKEN, which are recorded in
   * `runner.skippedTriggers` instead, as GitHub starts no workflow for them (a `pull_request`
   * one may create runs waiting for approval: readings.ts `tokenPullRequestRuns`).
   */
  triggerOnWebhooks?: boolean;
  /**
   * Run each job's processes as GitHub's `runner` user (with its sudoers rule) in a network
   * and mount namespace of the job's own, with a user database and /etc of its own
   * (sandbox.ts), so the worker workflow's fence step really sets the fence up. Needs root.
   * `ports`: loopback ports besides the emulator's that the job's processes reach;
   * `without`: programs the job's machine lacks (`nft`…), as on a runner image without them.
   */
  sandbox?: boolean | { ports?: number[]; without?: string[] };
}

export class StepFailure extends Error {}

/** The step was stopped because its job was cancelled (or ran out of time). */
export class StepCancelled extends StepFailure {
  constructor() {
    super('The operation was canceled.');
  }
}

/** The state of one job while it runs, shared by its steps. */
export interface JobRuntime {
  host: ActionsHost;
  options: RunnerOptions;
  run: RunRecord;
  record: JobRecord;
  def: JobDef;
  workflow: WorkflowFile;
  artifacts: ArtifactService;
  workspace: string;
  temp: string;
  /** Directory for the per-step command files. */
  files: string;
  token: string;
  /** Variables only JavaScript actions' processes get (runner-env.ts actionRuntimeVariables). */
  actionRuntime: Record<string, string>;
  /** github, inputs, secrets, vars, runner, needs, job, steps (env is per step). */
  contexts: Contexts;
  status: StatusState;
  /** Variables set through GITHUB_ENV, for the following steps. */
  exported: Record<string, string>;
  /** Directories added through GITHUB_PATH, newest first. */
  path: string[];
  /** The job's namespaces and user, when the runner sandboxes jobs (sandbox.ts). */
  sandbox?: JobSandbox;
  /** `post:` entry points of node actions, run at the end of the job in reverse order. */
  post: Array<{ name: string; run: (signal: AbortSignal, timeoutMs: number) => Promise<void> }>;
  log(line: string): void;
  /** Hides `value` in this job's log from now on (`::add-mask::`, what actions do with tokens). */
  mask(value: string): void;
}

/** Everything one step needs to execute. */
export interface StepInvocation {
  job: JobRuntime;
  def: StepDef;
  name: string;
  /** Full process environment for the step (runner variables + env levels + GITHUB_ENV). */
  env: Record<string, string>;
  /** `with:` after expressions. */
  with: Record<string, string>;
  /** `run:` after expressions. */
  script?: string;
  /** Per-step command files. */
  files: { output: string; env: string; path: string; state: string; summary: string };
  /** Contexts as this step sees them (env included), for actions' input defaults. */
  contexts: Contexts;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface StepOutcome {
  /** Outputs the step produced directly (built-in actions); GITHUB_OUTPUT is read as well. */
  outputs?: Record<string, string>;
}

export type StepHandler = (step: StepInvocation) => Promise<StepOutcome | void>;

export type { JobDef, StepDef, WorkflowFile };
