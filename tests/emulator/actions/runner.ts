// The emulated Actions service: finds workflows in the repository's git, accepts
// dispatches (answering at once, running in the background), cancels and re-runs runs,
// and gives tests what they need to wait and look: `idle()` and `logs()`.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConcurrencyGroups } from './concurrency.ts';
import { DispatchError, resolveInputs } from './dispatch.ts';
import { templateText, type Contexts, type Json } from './expressions.ts';
import { commitInfo, defaultBranch, listWorkflowPaths, readFileAt, resolveRef } from './git.ts';
import type { ActionsHost } from './host.ts';
import { ActionsStore, latestJobs, type RunRecord, type WorkflowRecord } from './records.ts';
import { ActionsShapes, userLite } from './render.ts';
import { RunExecution } from './run-execution.ts';
import { ArtifactService } from './steps/artifacts.ts';
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

/** What a run needs to be started again (re-run). */
interface RunSource {
  workflow: WorkflowFile;
  contexts: Contexts;
  eventPayload: Record<string, unknown>;
  headCommit: Record<string, unknown>;
}

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
    const headCommit = {
      id: commit.sha,
      tree_id: commit.tree,
      message: commit.message,
      timestamp: commit.timestamp,
      author: commit.author,
      committer: commit.committer,
    };
    const now = new Date().toISOString();
    const run: RunRecord = {
      id: this.store.id(),
      owner: req.owner,
      repo: req.repo,
      workflowId: wf.id,
      path: found.path,
      workflowName: workflow.name,
      displayTitle: workflow.name,
      runNumber: this.store.nextRunNumber(wf.id),
      runAttempt: 1,
      event: 'workflow_dispatch',
      status: 'queued',
      conclusion: null,
      headSha: ref.sha,
      headBranch: ref.name,
      ref: ref.ref,
      inputs: inputs.context,
      actor: req.actor,
      createdAt: now,
      updatedAt: now,
      runStartedAt: now,
      checkSuiteId: this.store.id(),
      jobs: [],
      cancelRequested: false,
    };
    const contexts: Contexts = {
      github: githubContext(this.host, run, repository, eventPayload, workflow),
      inputs: inputs.context,
      vars: this.options.vars ?? {},
    };
    if (workflow.runName !== undefined) {
      try {
        run.displayTitle = templateText(workflow.runName, contexts);
      } catch (err) {
        throw new DispatchError(422, `Invalid workflow file ${found.path}: run-name: ${(err as Error).message}`);
      }
    }
    this.store.runs.set(run.id, run);
    this.sources.set(run.id, { workflow, contexts, eventPayload, headCommit });
    this.emit('workflow_dispatch', () => eventPayload, req.owner, req.repo);
    await this.start(run);
    return run;
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
      base_ref: '',
      event,
      event_name: run.event,
      event_path: '',
      graphql_url: `${host.apiUrl}/graphql`,
      head_ref: '',
      ref: run.ref,
      ref_name: run.headBranch,
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
