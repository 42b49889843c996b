// The workflow manifest as the rest of baton sees it: validated, defaults applied,
// `extends` resolved, the implicit "wait for the step above" order made explicit.
// Keys are camelCase here; the YAML keeps the kebab-case of GitHub Actions.

export const BACKENDS = ['claude-code', 'codex', 'aider', 'opencode', 'gemini', 'copilot', 'command'] as const;
export type Backend = (typeof BACKENDS)[number];

/** Repository permission levels, as the collaborator permission API names them. */
export const ROLES = ['admin', 'maintain', 'write', 'triage', 'read'] as const;
export type Role = (typeof ROLES)[number];
export const DEFAULT_ROLES: Role[] = ['admin', 'maintain', 'write'];

export const STEP_KINDS = ['agent', 'run', 'ask', 'review', 'checks', 'approve', 'pull-request', 'label'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** A JSON Schema as written by the user (validated as a schema by the loader). */
export type JsonSchema = Record<string, unknown> | boolean;

/** A `${{ … }}` expression or a string that embeds some; kept as written. */
export type Template = string;

export interface Triggers {
  labels: string[];
  commands: string[];
  roles: Role[];
  /** Bot logins (e.g. `renovate[bot]`) allowed to trigger; bots are ignored otherwise. */
  bots: string[];
  /** `pull_request`: a run per pull request event, bound to the pull request (absent: none). */
  pullRequest?: PullRequestTrigger;
  /** `issues`: a run per issue event, bound to the issue (absent: none). */
  issues?: IssuesTrigger;
  /** `workflow_run`: a "CI doctor" run when a named workflow ends as listed (absent: none). */
  workflowRun?: WorkflowRunTrigger;
  /** `schedule`: runs on GitHub's cron syntax, UTC, each bound to the workflow's tracking issue (absent: none). */
  schedule?: ScheduleTrigger[];
}

/**
 * Who may cause an automatic run (`on.<event>.authors`): the event's author must hold one of
 * `roles`, or be one of `bots` (logins), or `any` admits everyone. Default: the workflow's `on.roles`.
 * baton's own events never match unless its bot login is listed in `bots`.
 */
export interface Authors {
  any: boolean;
  roles: Role[];
  bots: string[];
}

export const PULL_REQUEST_TYPES = ['opened', 'synchronize', 'reopened', 'ready_for_review', 'edited'] as const;
export type PullRequestType = (typeof PULL_REQUEST_TYPES)[number];
export const DEFAULT_PULL_REQUEST_TYPES: PullRequestType[] = ['opened', 'synchronize', 'reopened', 'ready_for_review'];

export interface PullRequestTrigger {
  types: PullRequestType[];
  /** Base-branch patterns (GitHub's filter syntax, `!` negates); empty: any base. */
  branches: string[];
  /** Changed-file patterns (GitHub's filter syntax, `!` negates); empty: any change. */
  paths: string[];
  /** baton's own filter: draft pull requests start runs only when true (default false). */
  drafts: boolean;
  authors: Authors;
  /** Steps that write push to the PR's head branch (same repository only); default false: a follow-up PR against it. */
  pushToHead: boolean;
  /** A fork's pull request: `ignore` (default) starts nothing; `review` runs with the fork's code, no write token, no secret (the model key stays in the sandbox's proxy). */
  forks: 'ignore' | 'review';
}

export const ISSUES_TYPES = ['opened', 'reopened', 'edited'] as const;
export type IssuesType = (typeof ISSUES_TYPES)[number];

export interface IssuesTrigger {
  types: IssuesType[];
  authors: Authors;
}

export interface WorkflowRunTrigger {
  /** Workflow names (the `name:` of `.github/workflows/*.yml`, as GitHub matches them). */
  workflows: string[];
  /** Head-branch patterns; empty: any branch. */
  branches: string[];
  /** baton's own filter: the conclusions that start a run (default [failure]). */
  conclusions: string[];
  authors: Authors;
}

export interface ScheduleTrigger {
  /** Five-field cron, GitHub's syntax, in UTC. */
  cron: string;
}

/** `concurrency`: what a newer event does to an older run of the same workflow on the same thread. */
export interface Concurrency {
  /** Cancel the older run (default true for runs started by `pull_request`, false otherwise). */
  cancelInProgress?: boolean;
}

export interface InputSpec {
  type: 'string' | 'number' | 'boolean' | 'choice';
  default?: string | number | boolean;
  description?: string;
  required: boolean;
  /** Allowed values for `choice`. */
  options?: string[];
}

export interface AgentSpec {
  uses: Backend;
  model?: string;
  timeoutMinutes?: number;
  maxTurns?: number;
  /** For `command`: argv of the program; the prompt arrives on stdin. */
  run?: string[];
  /** Extra CLI arguments appended to the backend's own. */
  args?: string[];
  env: Record<string, string>;
  /** `mcp-servers`: MCP servers the agent's CLI is given, by server name (absent when none). */
  mcpServers?: Record<string, McpServer>;
  /** Another agent that takes this one's attempts while its backend is down (engine/breaker.ts). */
  fallback?: string;
  /** `network.allow`: hosts the agent may reach beyond its backend's model API and its MCP servers' (src/manifest/network.ts). */
  network?: { allow: string[] };
  /** `sandbox`: `required` fails an attempt that would run without every protection; absent: `preferred`. */
  sandbox?: SandboxMode;
  /** `limits`: resource limits of the agent's processes; absent ones take the defaults (DEFAULT_LIMITS), null: no limit. */
  limits?: LimitsSpec;
}

export const SANDBOX_MODES = ['required', 'preferred'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export interface LimitsSpec {
  cpuSeconds?: number | null;
  memoryMb?: number | null;
  processes?: number | null;
}

/**
 * A step's `network`: `off` (nothing at all), `default` (its agent's list; for a run step the
 * package registries), or `{ allow }`, which narrows the agent's list (src/manifest/network.ts).
 */
export type StepNetwork = 'off' | 'default' | { allow: string[] };

/**
 * One MCP server of an agent: a program baton's agent CLI starts (stdio), or a remote one
 * (streamable HTTP). `env` and `headers` values may read the worker's environment as
 * `${NAME}` (secrets reach the worker as environment variables, never through the manifest).
 */
export type McpServer = { command: string; args?: string[]; env?: Record<string, string> } | { url: string; headers?: Record<string, string> };

/** Caps of raised limits: the run's cost limit (USD), a step attempt's minutes, an agent's turns. */
export interface RaiseCaps {
  costUsd?: number;
  minutes?: number;
  turns?: number;
}

export interface Budget {
  maxSteps?: number;
  maxMinutes?: number;
  maxCostUsd?: number;
  /** `raise-to`: the most `/baton retry --budget/--minutes/--turns` may raise each limit to; an absent one is not raised. */
  raiseTo?: RaiseCaps;
  /** `per-day`: caps over the workflow's runs started on one UTC day, checked before a run starts. */
  perDay?: { maxRuns?: number; maxCostUsd?: number };
}

interface StepBase {
  id: string;
  kind: StepKind;
  /** Human title; defaults to the id. */
  name: string;
  /** Explicit or implicit (the step above) dependencies, always filled in. */
  needs: string[];
  if?: Template;
  retries: number;
  timeoutMinutes?: number;
  forEach?: Template;
  maxParallel?: number;
  /** With `for-each`: the most items the step may fan out to (the engine's default when absent). */
  maxItems?: number;
  /** Whether the step changes files (gets a branch of its own and is merged back). */
  writes: boolean;
  /** `no-changes: succeed`: a writing step's attempt that changes nothing succeeds (absent: it fails, jobs.ts). */
  noChanges?: 'succeed';
  /**
   * `protected-paths: allow` (true): results may change workflow files, `.agents/` and agent
   * configuration; a list: only the protected paths it names (a folder ends with `/`).
   */
  allowProtectedPaths?: true | string[];
  env: Record<string, string>;
  /** `network` (agent, review and run steps): narrows what the step's worker may reach. */
  network?: StepNetwork;
  /** `sandbox: required` (agent, review and run steps): tightens the agent's `sandbox`. */
  sandbox?: SandboxMode;
}

export interface AgentStep extends StepBase {
  kind: 'agent';
  agent: string;
  prompt: Template;
  outputs?: JsonSchema;
}

export interface RunStep extends StepBase {
  kind: 'run';
  run: Template;
  /** Optional: the command may write JSON to the file named by BATON_OUTPUT. */
  outputs?: JsonSchema;
}

export interface AskStep extends StepBase {
  kind: 'ask';
  /** Static questions, or one expression that yields an array of strings. */
  questions: Template[] | Template;
  timeoutHours?: number;
}

export interface ReviewStep extends StepBase {
  kind: 'review';
  agent: string;
  maxRounds: number;
  /** Writing step re-run with the review comments when changes are requested. */
  fix?: string;
  prompt?: Template;
  /**
   * The review events the step may post on a pull request it did not open (GitHub's APPROVE,
   * REQUEST_CHANGES, COMMENT, lowercased); absent: [comment]. On the run's own PR it always comments.
   */
  verdicts?: ReviewVerdict[];
}

export const REVIEW_VERDICTS = ['comment', 'approve', 'request-changes'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

export interface ChecksStep extends StepBase {
  kind: 'checks';
  /** Check-run / commit-status names; `"*"` means every one reported. */
  names: string[];
  fix?: string;
  maxRounds: number;
  /** Commands that stand in for the named checks in local runs. */
  local: Record<string, string>;
  /** A workflow file to dispatch on the run branch (the GITHUB_TOKEN gotcha). */
  workflow?: string;
  /** CI may run agent-written commits no person approved (the author accepted the risk). */
  withoutApproval: boolean;
}

export interface ApproveStep extends StepBase {
  kind: 'approve';
  roles: Role[];
  message?: Template;
}

export interface PullRequestStep extends StepBase {
  kind: 'pull-request';
  title: Template;
  body?: Template;
  draft: boolean;
  /** Base branch; the repository's default branch when absent. */
  base?: string;
  labels: string[];
}

/**
 * Adds labels to the run's issue or pull request: only names the repository already has
 * (matched without case, written as the repository spells them); others are reported, never created.
 */
export interface LabelStep extends StepBase {
  kind: 'label';
  /** Label names as written (each may embed expressions), or one expression that yields an array of strings. */
  add: Template | string[];
  /** Every label the step may add, written out: any other name `add` yields is dropped. */
  labels: string[];
}

export type Step = AgentStep | RunStep | AskStep | ReviewStep | ChecksStep | ApproveStep | PullRequestStep | LabelStep;

export interface Workflow {
  name: string;
  description?: string;
  on: Triggers;
  inputs: Record<string, InputSpec>;
  agents: Record<string, AgentSpec>;
  budget: Budget;
  /** Absent when the manifest has none (defaults in engine terms: see Concurrency). */
  concurrency?: Concurrency;
  steps: Step[];
}

/** A validated workflow together with where it came from. */
export interface LoadedWorkflow {
  file: string;
  workflow: Workflow;
  /**
   * sha256 of the normalised workflow: a run remembers it to detect edits. Keys a manifest
   * does not write stay absent (no defaults spelled out), so a baton upgrade that adds a key
   * does not read as an edit to every run in flight.
   */
  hash: string;
}

export function stepById(workflow: Workflow, id: string): Step | undefined {
  return workflow.steps.find((s) => s.id === id);
}
