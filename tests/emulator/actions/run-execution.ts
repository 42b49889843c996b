// One attempt of a workflow run: waits for its concurrency group, then runs the job graph
// (a job starts when every job it `needs` is done; its `if` decides whether it runs),
// keeps the run and job records current and sends the workflow_run / workflow_job
// webhooks at each transition, as GitHub does.
import { join } from 'node:path';
import type { ConcurrencyGroups, Member } from './concurrency.ts';
import { condition, templateText, type Contexts, type Json, type StatusState } from './expressions.ts';
import { JobExecution, type JobResult } from './job.ts';
import type { ActionsHost } from './host.ts';
import type { ActionsStore, JobConclusion, JobRecord, RunConclusion, RunRecord } from './records.ts';
import { userLite, type ActionsShapes } from './render.ts';
import type { ArtifactService } from './steps/artifacts.ts';
import { StepFailure, type RunnerOptions } from './types.ts';
import type { Concurrency, JobDef, WorkflowFile } from './workflow-file.ts';

export interface RunDeps {
  host: ActionsHost;
  options: RunnerOptions;
  store: ActionsStore;
  shapes: ActionsShapes;
  artifacts: ArtifactService;
  groups: ConcurrencyGroups;
  /** Sends a webhook built by `payload`; failures are recorded by the runner, never thrown into a run. */
  emit: (event: string, payload: () => Record<string, unknown>) => void;
  /** Records an emulator bug (not a workflow failure) for tests to see. */
  reportError: (message: string) => void;
  headCommit: Record<string, unknown>;
  workflowPayload: Record<string, unknown>;
}

export interface RunInput {
  run: RunRecord;
  workflow: WorkflowFile;
  /** github (without job-specific fields), inputs, vars. */
  contexts: Contexts;
  eventPath: string;
  /** This attempt's directory. */
  dir: string;
}

interface JobState {
  def: JobDef;
  result?: JobResult;
  record?: JobRecord;
  execution?: JobExecution;
}

export class RunExecution implements Member {
  private readonly jobs = new Map<string, JobState>();
  private cancelled = false;
  /** Members (the run, or a job) waiting for a concurrency group, by group key. */
  private readonly waiting = new Map<Member, string>();
  /** Check-run updates of this run, in the order its jobs changed (webhooks keep that order). */
  private checks: Promise<void> = Promise.resolve();
  readonly done: Promise<void>;

  constructor(
    private readonly deps: RunDeps,
    private readonly input: RunInput,
  ) {
    for (const def of input.workflow.jobs) this.jobs.set(def.id, { def });
    this.done = this.execute();
  }

  /** Cancel the run: queued jobs never start, running ones stop (their `always()` steps still run). */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.input.run.cancelRequested = true;
    for (const [member, key] of this.waiting) this.deps.groups.withdraw(key, member);
    for (const job of this.jobs.values()) job.execution?.cancel();
  }

  private touch(): void {
    this.input.run.updatedAt = new Date().toISOString();
  }

  private emitRun(action: 'requested' | 'in_progress' | 'completed'): void {
    const { run } = this.input;
    this.deps.emit('workflow_run', () => ({
      action,
      workflow_run: this.deps.shapes.run(run, this.deps.headCommit),
      workflow: this.deps.workflowPayload,
      sender: userLite(run.actor),
    }));
    const { runChanged } = this.deps.host;
    if (runChanged) this.syncChecks(() => runChanged.call(this.deps.host, run));
  }

  private emitJob(action: 'queued' | 'in_progress' | 'completed', job: JobRecord): void {
    const { run } = this.input;
    this.deps.emit('workflow_job', () => ({ action, workflow_job: this.deps.shapes.job(run, job), sender: userLite(run.actor) }));
    const { jobChanged } = this.deps.host;
    if (jobChanged) this.syncChecks(() => jobChanged.call(this.deps.host, run, job));
  }

  /** Jobs are check runs of GitHub Actions: the host's check runs follow every transition. */
  private syncChecks(update: () => Promise<void>): void {
    this.checks = this.checks.then(update).catch((err: unknown) => this.deps.reportError(`check runs of run ${this.input.run.id}: ${(err as Error).stack ?? String(err)}`));
  }

  private async withGroup<T>(concurrency: Concurrency | undefined, ctx: Contexts, member: Member, body: () => Promise<T>, onReplaced: () => T): Promise<T> {
    if (!concurrency) return body();
    const { run } = this.input;
    const group = templateText(concurrency.group, ctx);
    const cancelInProgress = templateText(concurrency.cancelInProgress, ctx) === 'true';
    const key = `${run.owner}/${run.repo}`.toLowerCase() + `\u0000${group}`;
    this.waiting.set(member, key);
    const admitted = await this.deps.groups.acquire(key, member, cancelInProgress);
    this.waiting.delete(member);
    if (!admitted || this.cancelled) {
      if (admitted) this.deps.groups.release(key, member);
      return onReplaced();
    }
    try {
      return await body();
    } finally {
      this.deps.groups.release(key, member);
    }
  }

  private async execute(): Promise<void> {
    const { run, workflow, contexts } = this.input;
    this.emitRun('requested');
    let conclusion: RunConclusion;
    try {
      conclusion = await this.withGroup(
        workflow.concurrency,
        contexts,
        this,
        () => this.runJobs(),
        (): RunConclusion => 'cancelled',
      );
    } catch (err) {
      // A bad `concurrency` expression fails the run; anything else is an emulator bug.
      conclusion = 'failure';
      if (!(err instanceof StepFailure)) this.deps.reportError(`run ${run.id}: ${(err as Error).stack ?? String(err)}`);
    }
    run.status = 'completed';
    run.conclusion = conclusion;
    this.touch();
    this.emitRun('completed');
    await this.checks;
  }

  private async runJobs(): Promise<RunConclusion> {
    const { run } = this.input;
    run.status = 'in_progress';
    run.runStartedAt = new Date().toISOString();
    this.touch();
    this.emitRun('in_progress');

    const running = new Map<string, Promise<void>>();
    for (;;) {
      for (const [id, state] of this.jobs) {
        if (state.result || running.has(id)) continue;
        if (!state.def.needs.every((n) => this.jobs.get(n)!.result)) continue;
        running.set(id, this.startJob(state));
      }
      if (running.size === 0) break;
      const finished = await Promise.race([...running].map(([id, p]) => p.then(() => id)));
      running.delete(finished);
    }

    const results = [...this.jobs.values()].map((j) => j.result!);
    if (results.some((r) => r.conclusion === 'failure' && !r.failureAllowed)) return 'failure';
    // A job past its timeout-minutes is cancelled, and so is the run when nothing failed: GitHub
    // reports a job timeout as `cancelled`, the run too (paiml/aprender issue #3293: runs
    // "concluded cancelled" at exactly their timeout-minutes; evoila/meho issue #2800).
    if (this.cancelled || results.some((r) => r.conclusion === 'cancelled' || r.timedOut)) return 'cancelled';
    return 'success';
  }

  /** Every job `id` depends on, directly or not. */
  private ancestors(id: string, seen = new Set<string>()): Set<string> {
    for (const need of this.jobs.get(id)!.def.needs) {
      if (!seen.has(need)) {
        seen.add(need);
        this.ancestors(need, seen);
      }
    }
    return seen;
  }

  private async startJob(state: JobState): Promise<void> {
    const { run, workflow } = this.input;
    const { def } = state;
    const needs: Record<string, Json> = {};
    for (const n of def.needs) {
      const r = this.jobs.get(n)!.result!;
      needs[n] = { result: r.conclusion, outputs: r.outputs };
    }
    const upstream = [...this.ancestors(def.id)].map((n) => this.jobs.get(n)!.result!);
    const status: StatusState = {
      failed: upstream.some((r) => r.conclusion === 'failure' && !r.failureAllowed),
      cancelled: this.cancelled,
      blocked: upstream.some((r) => r.conclusion !== 'success' && !r.failureAllowed),
    };
    const ctx: Contexts = { ...this.input.contexts, needs };
    const now = new Date().toISOString();
    const record: JobRecord = {
      id: this.deps.store.id(),
      runId: run.id,
      runAttempt: run.runAttempt,
      key: def.id,
      name: def.id,
      status: 'queued',
      conclusion: null,
      createdAt: now,
      startedAt: now,
      completedAt: null,
      steps: [],
      runnerId: null,
      runnerName: null,
      labels: runsOnLabels(def.runsOn),
      log: [],
      summary: '',
      outputs: {},
    };
    state.record = record;
    run.jobs.push(record);
    this.deps.store.jobs.set(record.id, record);

    let runIt: boolean;
    try {
      if (def.name !== undefined) record.name = templateText(def.name, ctx);
      runIt = condition(def.if, ctx, status);
    } catch (err) {
      record.log.push(`##[error]job '${def.id}': ${(err as Error).message}`);
      this.emitJob('queued', record);
      this.finishJob(state, { conclusion: 'failure', outputs: {}, timedOut: false, failureAllowed: false });
      return;
    }
    if (!runIt) {
      // a job skipped because the run was cancelled counts as cancelled
      this.finishJob(state, { conclusion: this.cancelled ? 'cancelled' : 'skipped', outputs: {}, timedOut: false, failureAllowed: false });
      this.emitJob('completed', record);
      return;
    }
    this.emitJob('queued', record);
    this.touch();

    const member: Member = { cancel: () => state.execution?.cancel() };
    let result: JobResult;
    try {
      result = await this.withGroup(
        def.concurrency,
        ctx,
        member,
        async () => {
          const execution = new JobExecution({
            host: this.deps.host,
            options: this.deps.options,
            workflow,
            def,
            run,
            record,
            artifacts: this.deps.artifacts,
            dir: join(this.input.dir, def.id),
            contexts: ctx,
            eventPath: this.input.eventPath,
            changed: () => this.touch(),
            reportError: this.deps.reportError,
          });
          state.execution = execution;
          if (this.cancelled) execution.cancel();
          this.emitJob('in_progress', record);
          return execution.done;
        },
        (): JobResult => ({ conclusion: 'cancelled', outputs: {}, timedOut: false, failureAllowed: false }),
      );
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      record.log.push(`##[error]job '${def.id}': ${err.message}`);
      result = { conclusion: 'failure', outputs: {}, timedOut: false, failureAllowed: false };
    }
    this.finishJob(state, result);
    this.emitJob('completed', record);
  }

  private finishJob(state: JobState, result: JobResult): void {
    const record = state.record!;
    state.result = result;
    record.status = 'completed';
    record.conclusion = result.conclusion as JobConclusion;
    record.completedAt = new Date().toISOString();
    this.touch();
  }
}

function runsOnLabels(runsOn: unknown): string[] {
  if (typeof runsOn === 'string') return [runsOn];
  if (Array.isArray(runsOn)) return runsOn.map(String);
  if (runsOn && typeof runsOn === 'object' && 'labels' in runsOn) return runsOnLabels((runsOn as { labels: unknown }).labels);
  return [];
}
