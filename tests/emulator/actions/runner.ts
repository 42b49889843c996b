// The emulated Actions service: finds workflows in the repository's git, accepts
// dispatches (answering at once, running in the background), starts the runs events
// trigger (`trigger`, fed every webhook with `triggerOnWebhooks`), cancels and re-runs
// runs, and gives tests what they need to wait and look: `idle()` and `logs()`.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConcurrencyGroups } from './concurrency.ts';
import { DispatchError, resolveInputs } from './dispatch.ts';
import { templateText, type Contexts, type Json } from './expressions.ts';
import { commitInfo, defaultBranch, listWorkflowPaths, readFileAt, resolveRef, type CommitInfo } from './git.ts';
import type { ActionsHost } from './host.ts';
import { ActionsStore, latestJobs, sameRepo, type RunRecord, type WorkflowRecord } from './records.ts';
import { ActionsShapes, userLite } from './render.ts';
import { RunExecution } from './run-execution.ts';
import { ArtifactService } from './steps/artifacts.ts';
import {
  GITHUB_TOKEN_LOGIN,
  MAX_WORKFLOW_RUN_DEPTH,
  pullMergeCommit,
  refName,
  cronsOf,
  startedByActions,
  TOKEN_EXEMPT,
  tokenRunsAwaitApproval,
  TRIGGER_EVENTS,
  workflowListens,
} from './triggers.ts';
import type { RunnerOptions } from './types.ts';
import { parseWorkflowFile, WorkflowFileError, type WorkflowFile } from './workflow-file.ts';

export interface DispatchRequest {
  owner: string;
  repo: string;
  /** Workflow id, or its file name (`baton-worker.yml`). */
  workflow: string | number;
  ref: string;
  inputs?: Record<string, unknown>;
  /** The user object of who dispatched (run `actor`, webhook `sender`). */
  actor: Record<string, unknown>;
}

/** A run an event started (`runner.trigger`). */
export interface TriggeredRun {
  event: string;
  action?: string;
  runId: number;
  path: string;
  /** Created waiting for a person's approval (`approve()` starts it). */
  awaitingApproval?: boolean;
}

/** An event that started nothing although it might have: who caused it, why, which workflows listen to it. */
export interface SkippedTrigger {
  event: string;
  action?: string;
  sender: string;
  reason: string;
  /** Workflow files whose `on:` matched the event. */
  workflows: string[];
}

/** Where an event runs its workflows: GITHUB_REF, GITHUB_SHA and the run's head branch. */
interface EventLocation {
  ref: string;
  sha: string;
  headBranch: string;
  headRef?: string;
  baseRef?: string;
}

/** What a run needs to be started again (re-run). */
interface RunSource {
  workflow: WorkflowFile;
  contexts: Contexts;
  eventPayload: Record<string, unknown>;
  headCommit: Record<string, unknown>;
}

/** A branch name that looks like a commit SHA (pull_request_target, eventLocation). */
const SHA_LIKE = /^[0-9a-f]{7,40}$/i;

export class ActionsRunner {
  readonly store = new ActionsStore();
  readonly shapes: ActionsShapes;
  readonly artifacts: ArtifactService;
  /** Emulator bugs: webhooks that could not be sent (a payload the schema refused), runner crashes. */
  readonly errors: string[] = [];
  private readonly groups = new ConcurrencyGroups();
  private readonly executions = new Map<number, RunExecution>();
  private readonly sources = new Map<number, RunSource>();
  private readonly active = new Set<Promise<void>>();
  private workRoot: string | undefined;
  private ownsWorkRoot = false;
  private readonly secret = randomBytes(16);
  private readonly workflowFiles = new Map<string, Array<{ path: string; name: string }>>();
  /** Runs started by an event, in order (test support). */
  readonly triggered: TriggeredRun[] = [];
  /** Events that started no workflow because a GITHUB_TOKEN caused them (or a limit GitHub has). */
  readonly skippedTriggers: SkippedTrigger[] = [];
  /** Webhook triggers run one after the other, in the order the events happened. */
  private triggerChain: Promise<void> = Promise.resolve();
  /** Runs created waiting for approval, not approved yet. */
  private readonly awaitingApproval = new Set<number>();
  /** How deep in a workflow_run chain each run is (1: started by anything else). */
  private readonly chainDepth = new Map<number, number>();

  constructor(
    readonly host: ActionsHost,
    readonly options: RunnerOptions = {},
  ) {
    this.shapes = new ActionsShapes(host);
    this.artifacts = new ArtifactService(this.store);
  }

  private async root(): Promise<string> {
    if (this.workRoot === undefined) {
      if (this.options.workRoot) {
        this.workRoot = this.options.workRoot;
        await mkdir(this.workRoot, { recursive: true });
      } else {
        this.workRoot = await mkdtemp(join(tmpdir(), 'baton-actions-'));
        this.ownsWorkRoot = true;
      }
    }
    return this.workRoot;
  }

  private emit(event: string, payload: () => Record<string, unknown>, owner: string, repo: string): void {
    try {
      const result = this.host.emit(event, { repository: this.host.repository(owner, repo), ...payload() });
      if (result instanceof Promise) result.catch((err: unknown) => this.errors.push(`${event}: ${(err as Error).message}`));
    } catch (err) {
      this.errors.push(`${event}: ${(err as Error).message}`);
    }
  }

  /** Workflows of the repository's default branch, registered with stable ids. */
  async listWorkflows(owner: string, repo: string): Promise<WorkflowRecord[]> {
    const gitDir = this.host.gitDir(owner, repo);
    const head = await resolveRef(gitDir, await defaultBranch(gitDir));
    if (!head) return [];
    // Reading every workflow file costs a git call each: remember them per commit.
    const key = `${gitDir}\u0000${head.sha}`;
    let named = this.workflowFiles.get(key);
    if (!named) {
      named = [];
      for (const path of await listWorkflowPaths(gitDir, head.sha)) {
        named.push({ path, name: workflowName(path, (await readFileAt(gitDir, head.sha, path)) ?? '') });
      }
      this.workflowFiles.set(key, named);
    }
    return named.map(({ path, name }) => this.store.workflow(owner, repo, path, name)).sort((a, b) => a.id - b.id);
  }

  /** A workflow by id or file name; undefined when the default branch has no such file. */
  async findWorkflow(owner: string, repo: string, idOrFile: string | number): Promise<WorkflowRecord | undefined> {
    const all = await this.listWorkflows(owner, repo);
    const key = String(idOrFile);
    if (/^\d+$/.test(key)) return all.find((w) => w.id === Number(key)) ?? this.store.workflowById(owner, repo, Number(key));
    return all.find((w) => w.path === `.github/workflows/${key}` || w.path === key);
  }

  /** Starts a run like `POST …/dispatches`; throws DispatchError with GitHub's status and message. */
  async dispatch(req: DispatchRequest): Promise<RunRecord> {
    let gitDir: string;
    try {
      gitDir = this.host.gitDir(req.owner, req.repo);
    } catch {
      throw new DispatchError(404, 'Not Found');
    }
    const found = await this.findWorkflow(req.owner, req.repo, req.workflow);
    if (!found) throw new DispatchError(404, 'Not Found');
    const ref = await resolveRef(gitDir, req.ref);
    if (!ref) throw new DispatchError(422, `No ref found for: ${req.ref}`);
    const text = await readFileAt(gitDir, ref.sha, found.path);
    if (text === undefined) throw new DispatchError(422, `Workflow does not have 'workflow_dispatch' trigger`);
    let workflow: WorkflowFile;
    try {
      workflow = parseWorkflowFile(found.path, text);
    } catch (err) {
      if (err instanceof WorkflowFileError) throw new DispatchError(422, err.message);
      throw err;
    }
    if (!workflow.dispatchInputs) throw new DispatchError(422, `Workflow does not have 'workflow_dispatch' trigger`);
    const inputs = resolveInputs(workflow.dispatchInputs, req.inputs ?? {});
    const wf = this.store.workflow(req.owner, req.repo, found.path, workflow.name);

    const repository = this.host.repository(req.owner, req.repo);
    const installation = this.host.installation?.(req.owner, req.repo);
    const eventPayload: Record<string, unknown> = {
      inputs: inputs.event,
      ref: ref.ref,
      repository,
      sender: userLite(req.actor),
      workflow: found.path,
      ...(installation ? { installation } : {}),
    };
    const commit = await commitInfo(gitDir, ref.sha);
    const { run, contexts } = this.newRun({
      owner: req.owner,
      repo: req.repo,
      workflowId: wf.id,
      workflow,
      event: 'workflow_dispatch',
      location: { ref: ref.ref, sha: ref.sha, headBranch: ref.name },
      inputs: inputs.context,
      actor: req.actor,
      repository,
      eventPayload,
    });
    if (workflow.runName !== undefined) {
      try {
        run.displayTitle = templateText(workflow.runName, contexts);
      } catch (err) {
        throw new DispatchError(422, `Invalid workflow file ${found.path}: run-name: ${(err as Error).message}`);
      }
    }
    this.store.runs.set(run.id, run);
    this.sources.set(run.id, { workflow, contexts, eventPayload, headCommit: headCommitOf(commit) });
    this.emit('workflow_dispatch', () => eventPayload, req.owner, req.repo);
    await this.start(run);
    return run;
  }

  /** A queued run record and its contexts (`github`, `inputs`, `vars`); not stored yet. */
  private newRun(o: {
    owner: string;
    repo: string;
    workflowId: number;
    workflow: WorkflowFile;
    event: string;
    location: EventLocation;
    inputs: RunRecord['inputs'];
    actor: Record<string, unknown>;
    repository: Record<string, unknown>;
    eventPayload: Record<string, unknown>;
  }): { run: RunRecord; contexts: Contexts } {
    const now = new Date().toISOString();
    const { location } = o;
    const run: RunRecord = {
      id: this.store.id(),
      owner: o.owner,
      repo: o.repo,
      workflowId: o.workflowId,
      path: o.workflow.path,
      workflowName: o.workflow.name,
      displayTitle: o.workflow.name,
      runNumber: this.store.nextRunNumber(o.workflowId),
      runAttempt: 1,
      event: o.event,
      status: 'queued',
      conclusion: null,
      headSha: location.sha,
      headBranch: location.headBranch,
      ref: location.ref,
      ...(location.headRef !== undefined ? { headRef: location.headRef } : {}),
      ...(location.baseRef !== undefined ? { baseRef: location.baseRef } : {}),
      ...forkOf(o.event, o.eventPayload, o.repository),
      inputs: o.inputs,
      actor: o.actor,
      createdAt: now,
      updatedAt: now,
      runStartedAt: now,
      checkSuiteId: 0,
      jobs: [],
      cancelRequested: false,
    };
    // GitHub attaches a pull_request run's checks to the pull request's head, not the test merge commit.
    const checksSha = o.event === 'pull_request' ? String((o.eventPayload.pull_request as { head?: { sha?: string } } | undefined)?.head?.sha ?? location.sha) : location.sha;
    if (o.event === 'pull_request') run.pullHeadSha = checksSha;
    run.checkSuiteId = this.host.createCheckSuite?.(run, checksSha) ?? this.store.id();
    const contexts: Contexts = {
      github: githubContext(this.host, run, o.repository, o.eventPayload, o.workflow),
      inputs: o.inputs,
      vars: this.options.vars ?? {},
    };
    return { run, contexts };
  }

  /**
   * Starts every workflow whose `on:` lists the event, like GitHub does when the event
   * happens: the workflow files of the commit the event runs on (the default branch's
   * head for most events; the pushed commit for push, the test merge commit
   * `refs/pull/<n>/merge` for pull_request, the default branch for pull_request_target),
   * with `payload` as the event (GITHUB_EVENT_PATH, `github.event`). An event caused by a
   * job's GITHUB_TOKEN (sender `github-actions[bot]`) starts nothing and is recorded in
   * `skippedTriggers` — except a `pull_request` one under the reading `tokenPullRequestRuns:
   * 'action-required'`, whose runs are created waiting for approval (`hold`, `approve`).
   * Resolves with the runs started, once they run in the background.
   */
  async trigger(owner: string, repo: string, event: string, payload: Record<string, unknown>): Promise<RunRecord[]> {
    if (event === 'workflow_dispatch') throw new Error('workflow_dispatch runs start through dispatch()');
    const gitDir = this.host.gitDir(owner, repo);
    const repository = (payload.repository as Record<string, unknown> | undefined) ?? this.host.repository(owner, repo);
    const eventPayload: Record<string, unknown> = { ...payload, repository };
    const action = typeof payload.action === 'string' ? payload.action : undefined;
    const sender = (payload.sender ?? repository.owner ?? {}) as Record<string, unknown>;
    const login = String(sender.login ?? '');
    const tag = { event, ...(action !== undefined ? { action } : {}) };
    if (event === 'push' && payload.deleted === true) return [];

    const location = await this.eventLocation(gitDir, event, payload);
    if (typeof location === 'string') {
      this.skippedTriggers.push({ ...tag, sender: login, reason: location, workflows: [] });
      return [];
    }
    const matched: Array<{ path: string; workflow?: WorkflowFile; error?: string }> = [];
    for (const path of await listWorkflowPaths(gitDir, location.sha)) {
      const text = (await readFileAt(gitDir, location.sha, path)) ?? '';
      let on: unknown;
      try {
        on = (parse(text) as { on?: unknown } | null)?.on;
      } catch (err) {
        matched.push({ path, error: `Invalid workflow file ${path}: ${(err as Error).message}` });
        continue;
      }
      if (!workflowListens(on, event, payload, this.host.customRefPushRuns?.())) continue;
      try {
        matched.push({ path, workflow: parseWorkflowFile(path, text) });
      } catch (err) {
        if (!(err instanceof WorkflowFileError)) throw err;
        matched.push({ path, error: err.message });
      }
    }
    const paths = matched.filter((m) => m.workflow).map((m) => m.path);
    for (const m of matched) if (m.error) this.skippedTriggers.push({ ...tag, sender: login, reason: m.error, workflows: [m.path] });
    const byActions = startedByActions(event, payload, (sha) => [...this.store.runs.values()].some((r) => sameRepo(r, owner, repo) && r.headSha === sha));
    if (byActions) {
      this.skippedTriggers.push({ ...tag, sender: login, reason: byActions, workflows: paths });
      return [];
    }
    let held = false;
    if (login === GITHUB_TOKEN_LOGIN && !TOKEN_EXEMPT.has(event)) {
      held = tokenRunsAwaitApproval(event, action) && this.host.tokenPullRequestRuns?.() === 'action-required';
      if (!held) {
        this.skippedTriggers.push({ ...tag, sender: login, reason: 'caused by a GITHUB_TOKEN: GitHub starts no workflow for it', workflows: paths });
        return [];
      }
    }
    let depth = 1;
    if (event === 'workflow_run') {
      const parent = Number((payload.workflow_run as { id?: unknown } | undefined)?.id);
      // A run a job's GITHUB_TOKEN dispatched: whether its completion starts workflows is undocumented (readings.ts).
      const parentRun = this.store.runs.get(parent);
      if (parentRun?.event === 'workflow_dispatch' && parentRun.actor.login === GITHUB_TOKEN_LOGIN && this.host.workflowRunAfterTokenDispatch?.() === 'silent' && paths.length > 0) {
        this.skippedTriggers.push({ ...tag, sender: login, reason: 'a run a GITHUB_TOKEN dispatched: its workflow_run starts no workflow (reading workflowRunAfterTokenDispatch: silent)', workflows: paths });
        return [];
      }
      depth = (this.chainDepth.get(parent) ?? 1) + 1;
      if (depth > MAX_WORKFLOW_RUN_DEPTH && paths.length > 0) {
        this.skippedTriggers.push({ ...tag, sender: login, reason: `workflow_run chains stop after ${MAX_WORKFLOW_RUN_DEPTH} levels`, workflows: paths });
        return [];
      }
    }

    const commit = await commitInfo(gitDir, location.sha);
    const started: RunRecord[] = [];
    for (const { workflow } of matched) {
      if (!workflow) continue;
      const wf = this.store.workflow(owner, repo, workflow.path, workflow.name);
      const { run, contexts } = this.newRun({ owner, repo, workflowId: wf.id, workflow, event, location, inputs: {}, actor: sender, repository, eventPayload });
      run.displayTitle = defaultTitle(event, payload, commit, workflow.name);
      if (workflow.runName !== undefined) {
        try {
          run.displayTitle = templateText(workflow.runName, contexts);
        } catch {
          // GitHub shows the default title when run-name cannot be rendered.
        }
      }
      this.store.runs.set(run.id, run);
      this.sources.set(run.id, { workflow, contexts, eventPayload, headCommit: headCommitOf(commit) });
      this.chainDepth.set(run.id, depth);
      if (held) await this.hold(run);
      else await this.start(run);
      this.triggered.push({ ...tag, runId: run.id, path: workflow.path, ...(held ? { awaitingApproval: true } : {}) });
      started.push(run);
    }
    return started;
  }

  /** GITHUB_REF and GITHUB_SHA as GitHub sets them for the event, or why the event starts nothing. */
  private async eventLocation(gitDir: string, event: string, payload: Record<string, unknown>): Promise<EventLocation | string> {
    const branch = await defaultBranch(gitDir);
    const at = async (ref: string): Promise<EventLocation | string> => {
      const resolved = await resolveRef(gitDir, ref);
      return resolved ? { ref: resolved.ref, sha: resolved.sha, headBranch: resolved.name } : `no ref ${ref}`;
    };
    const pull = payload.pull_request as { number?: number; head?: { ref?: string; sha?: string }; base?: { ref?: string; sha?: string } } | undefined;
    switch (event) {
      case 'push': {
        const ref = String(payload.ref ?? '');
        return { ref, sha: String(payload.after ?? ''), headBranch: refName(ref) };
      }
      case 'pull_request': {
        const headRef = pull?.head?.ref ?? '';
        const baseRef = pull?.base?.ref ?? branch;
        const base = (await resolveRef(gitDir, `refs/heads/${baseRef}`))?.sha ?? pull?.base?.sha ?? '';
        const number = Number(pull?.number ?? payload.number);
        const merge = await pullMergeCommit(gitDir, number, base, pull?.head?.sha ?? '');
        if (merge === undefined) return `pull request #${number} has a merge conflict: GitHub starts no pull_request workflow until it is resolved`;
        return { ref: `refs/pull/${number}/merge`, sha: merge, headBranch: headRef, headRef, baseRef };
      }
      case 'pull_request_target': {
        // GitHub runs it on the default branch — its workflow files, GITHUB_REF the default
        // branch, GITHUB_SHA that branch's latest commit — whatever the pull request's base
        // (changelog 2025-11-07, "Actions pull_request_target and environment branch protections
        // changes", in force since 2025-12-08; docs "Events that trigger workflows",
        // pull_request_target). The docs add: "branches with names that match certain patterns
        // (such as those which look similar to SHAs) may not trigger workflows with the
        // pull_request_target event"; which patterns is not written down, so the emulator takes
        // the stricter reading: a head branch named like a commit SHA, full or abbreviated (7 to
        // 40 hex digits), starts nothing.
        const headRef = pull?.head?.ref ?? '';
        if (SHA_LIKE.test(headRef)) return `head branch ${JSON.stringify(headRef)} looks like a commit SHA: GitHub may start no pull_request_target workflow for it`;
        const loc = await at(`refs/heads/${branch}`);
        return typeof loc === 'string' ? loc : { ...loc, headRef, baseRef: pull?.base?.ref ?? branch };
      }
      case 'create':
        return at(`refs/${payload.ref_type === 'tag' ? 'tags' : 'heads'}/${String(payload.ref ?? '')}`);
      case 'release':
        return at(`refs/tags/${String((payload.release as { tag_name?: string } | undefined)?.tag_name ?? '')}`);
      default:
        return at(`refs/heads/${branch}`);
    }
  }

  /**
   * `triggerOnWebhooks`: queues `trigger` for a webhook the emulator emitted, in order;
   * `idle()` waits for it. Failures are emulator bugs (`errors`).
   */
  onWebhook(event: string, payload: Record<string, unknown>): void {
    if (!TRIGGER_EVENTS.has(event)) return;
    const [owner, repo] = String((payload.repository as { full_name?: string } | undefined)?.full_name ?? '').split('/');
    if (!owner || !repo) return;
    // The same pull request activity starts `pull_request_target` workflows too: in the base
    // repository's context — its default branch's workflow file, whatever the base, its
    // GITHUB_TOKEN with the permissions the workflow asks for, and its secrets, also for a
    // fork's pull request (docs "Events that trigger workflows", pull_request_target:
    // https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target).
    const events = event === 'pull_request' ? ['pull_request', 'pull_request_target'] : [event];
    const next = this.triggerChain.then(async () => {
      for (const e of events) {
        try {
          await this.trigger(owner, repo, e, payload);
        } catch (err) {
          this.errors.push(`trigger ${e}: ${(err as Error).stack ?? String(err)}`);
        }
      }
    });
    this.triggerChain = next;
    const done = next.finally(() => this.active.delete(done));
    this.active.add(done);
  }

  /**
   * Fires the repository's schedules now, as GitHub's scheduler does when their time comes:
   * one `schedule` event per distinct cron expression of the default branch's workflows,
   * with GitHub's payload (`schedule`: the expression, plus `repository`; octokit/webhooks
   * issue #141, changelog 2022-09-27), running on the default branch's head. GitHub runs
   * schedules at most every 5 minutes and may delay or drop them under load (docs "Events
   * that trigger workflows", schedule): tests fire them by hand, when they choose.
   */
  async schedule(owner: string, repo: string): Promise<RunRecord[]> {
    const gitDir = this.host.gitDir(owner, repo);
    const head = await resolveRef(gitDir, await defaultBranch(gitDir));
    if (!head) return [];
    const crons = new Set<string>();
    for (const path of await listWorkflowPaths(gitDir, head.sha)) {
      try {
        for (const c of cronsOf((parse((await readFileAt(gitDir, head.sha, path)) ?? '') as { on?: unknown } | null)?.on)) crons.add(c);
      } catch {
        // An invalid workflow file schedules nothing (trigger() reports it when it runs).
      }
    }
    const started: RunRecord[] = [];
    for (const cron of crons) started.push(...(await this.trigger(owner, repo, 'schedule', { schedule: cron })));
    return started;
  }

  /** Runs (or re-runs) the run's current attempt in the background. */
  private async start(run: RunRecord): Promise<void> {
    const source = this.sources.get(run.id)!;
    const dir = join(await this.root(), `run-${run.id}-${run.runAttempt}`);
    await mkdir(dir, { recursive: true });
    const eventPath = join(dir, 'event.json');
    await writeFile(eventPath, JSON.stringify(source.eventPayload, null, 2));
    const wf = this.store.workflowById(run.owner, run.repo, run.workflowId)!;
    const defaultBranchName = String(this.host.repository(run.owner, run.repo).default_branch ?? 'main');
    const contexts = {
      ...source.contexts,
      github: { ...(source.contexts.github as Record<string, Json>), run_attempt: String(run.runAttempt), event_path: eventPath },
    };
    const execution = new RunExecution(
      {
        host: this.host,
        options: this.options,
        store: this.store,
        shapes: this.shapes,
        artifacts: this.artifacts,
        groups: this.groups,
        emit: (event, payload) => this.emit(event, payload, run.owner, run.repo),
        reportError: (message) => this.errors.push(message),
        headCommit: source.headCommit,
        workflowPayload: this.shapes.workflow(wf, defaultBranchName),
      },
      { run, workflow: source.workflow, contexts, eventPath, dir },
    );
    this.executions.set(run.id, execution);
    const done = execution.done.finally(async () => {
      this.active.delete(done);
      if (!this.options.keepWorkspaces) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    });
    this.active.add(done);
  }

  /**
   * A run created waiting for approval (a GITHUB_TOKEN's pull_request event): completed,
   * conclusion `action_required`, no jobs, so no check runs; its check suite completes the
   * same way. GitHub's webhooks for it arrive already completed (pytorch/test-infra#8029).
   */
  private async hold(run: RunRecord): Promise<void> {
    Object.assign(run, { status: 'completed', conclusion: 'action_required' });
    this.awaitingApproval.add(run.id);
    const headCommit = this.headCommit(run.id);
    const wf = this.store.workflowById(run.owner, run.repo, run.workflowId)!;
    const workflow = this.shapes.workflow(wf, String(this.host.repository(run.owner, run.repo).default_branch ?? 'main'));
    for (const action of ['requested', 'completed']) {
      this.emit('workflow_run', () => ({ action, workflow_run: this.shapes.run(run, headCommit), workflow, sender: userLite(run.actor) }), run.owner, run.repo);
    }
    await this.host.runChanged?.(run);
  }

  /** Runs waiting for a person's approval. */
  get awaiting(): RunRecord[] {
    return [...this.awaitingApproval].map((id) => this.store.runs.get(id)!).filter(Boolean);
  }

  /**
   * A person with write access selects "Approve workflows to run" on the pull request: the
   * held run starts (same run, first attempt). False when the run does not wait for approval.
   */
  async approve(runId: number): Promise<boolean> {
    const run = this.store.runs.get(runId);
    if (!run || !this.awaitingApproval.delete(runId)) return false;
    const now = new Date().toISOString();
    Object.assign(run, { status: 'queued', conclusion: null, updatedAt: now, runStartedAt: now });
    await this.start(run);
    return true;
  }

  /** An unguessable key for a download link (`log:<job id>`), stable for this runner. */
  downloadKey(name: string): string {
    return createHmac('sha256', this.secret).update(name).digest('hex').slice(0, 32);
  }

  headCommit(runId: number): Record<string, unknown> {
    return this.sources.get(runId)?.headCommit ?? {};
  }

  /** `POST …/cancel`: false when the run is already completed. */
  cancel(runId: number): boolean {
    const run = this.store.runs.get(runId);
    if (!run || run.status === 'completed') return false;
    this.executions.get(runId)?.cancel();
    return true;
  }

  /**
   * `DELETE …/runs/{run_id}`: the run, its jobs (with their logs) and its artifacts are
   * gone; looking any of them up answers 404 from now on. False when the run has not
   * completed: GitHub deletes only completed runs (docs "Deleting a workflow run").
   */
  deleteRun(runId: number): boolean {
    const run = this.store.runs.get(runId);
    if (!run || run.status !== 'completed') return false;
    this.store.deleteRun(runId);
    this.sources.delete(runId);
    return true;
  }

  /** `POST …/rerun`: a new attempt of a completed run with the same commit and inputs. */
  async rerun(runId: number): Promise<boolean> {
    const run = this.store.runs.get(runId);
    if (!run || run.status !== 'completed' || !this.sources.has(runId)) return false;
    const now = new Date().toISOString();
    Object.assign(run, { runAttempt: run.runAttempt + 1, status: 'queued', conclusion: null, updatedAt: now, runStartedAt: now, cancelRequested: false });
    await this.start(run);
    return true;
  }

  /** Resolves when every run (including ones started meanwhile) has finished. */
  /** Whether runs or triggers are still being handled (what `idle()` waits for). */
  get busy(): boolean {
    return this.active.size > 0;
  }

  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  /** Every job log of the run's latest attempt, each under a `## <job name>` heading. */
  logs(runId: number): string {
    const run = this.store.runs.get(runId);
    if (!run) throw new Error(`no workflow run ${runId}`);
    return latestJobs(run)
      .map((j) => `## ${j.name}\n${j.log.join('\n')}`)
      .join('\n\n');
  }

  jobLog(jobId: number): string {
    const job = this.store.jobs.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    return job.log.join('\n');
  }

  /** Cancels what still runs, waits for it, removes the workspaces. */
  async close(): Promise<void> {
    for (const id of this.executions.keys()) this.cancel(id);
    await this.idle();
    if (this.ownsWorkRoot && this.workRoot && !this.options.keepWorkspaces) await rm(this.workRoot, { recursive: true, force: true });
  }
}

function workflowName(path: string, text: string): string {
  try {
    return parseWorkflowFile(path, text).name;
  } catch {
    return path;
  }
}

function headCommitOf(commit: CommitInfo): Record<string, unknown> {
  return {
    id: commit.sha,
    tree_id: commit.tree,
    message: commit.message,
    timestamp: commit.timestamp,
    author: commit.author,
    committer: commit.committer,
  };
}

/** GitHub's display title of a run without `run-name`. */
function defaultTitle(event: string, payload: Record<string, unknown>, commit: CommitInfo, workflowName: string): string {
  if (event === 'push') return commit.message.split('\n')[0] ?? workflowName;
  const pull = payload.pull_request as { title?: string } | undefined;
  if ((event === 'pull_request' || event === 'pull_request_target') && pull?.title) return pull.title;
  return workflowName;
}

function githubContext(
  host: ActionsHost,
  run: RunRecord,
  repository: Record<string, unknown>,
  event: Record<string, unknown>,
  workflow: WorkflowFile,
): Record<string, Json> {
  const login = String(run.actor.login ?? '');
  return JSON.parse(
    JSON.stringify({
      action: '',
      actor: login,
      actor_id: String(run.actor.id ?? ''),
      api_url: host.apiUrl,
      base_ref: run.baseRef ?? '',
      event,
      event_name: run.event,
      event_path: '',
      graphql_url: `${host.apiUrl}/graphql`,
      head_ref: run.headRef ?? '',
      ref: run.ref,
      ref_name: refName(run.ref),
      ref_protected: false,
      ref_type: run.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      repository: `${run.owner}/${run.repo}`,
      repository_id: String(repository.id ?? ''),
      repository_owner: run.owner,
      repositoryUrl: `${host.serverUrl}/${run.owner}/${run.repo}.git`,
      retention_days: '90',
      run_id: String(run.id),
      run_number: String(run.runNumber),
      run_attempt: String(run.runAttempt),
      secret_source: 'Actions',
      server_url: host.serverUrl,
      sha: run.headSha,
      triggering_actor: login,
      workflow: workflow.name,
      workflow_ref: `${run.owner}/${run.repo}/${run.path}@${run.ref}`,
      workflow_sha: run.headSha,
    }),
  ) as Record<string, Json>;
}

/** A `pull_request` run of a pull request from a fork: the fork is the run's head repository. */
function forkOf(event: string, payload: Record<string, unknown>, repository: Record<string, unknown>): { headRepository?: Record<string, unknown> } {
  if (event !== 'pull_request') return {};
  const head = (payload.pull_request as { head?: { repo?: Record<string, unknown> | null } } | undefined)?.head?.repo;
  return head && head.id !== repository.id ? { headRepository: head } : {};
}
