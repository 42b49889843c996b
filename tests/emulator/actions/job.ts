// One job on the emulated runner: a workspace of its own, a GITHUB_TOKEN limited to the
// job's permissions, then its steps in order with `if`, `continue-on-error`,
// `timeout-minutes`, env levels and the command files. Cancellation (of the run, or by
// the job's own time limit) stops the running step; steps whose `if` still holds after
// it (`always()`, `cancelled()`) run, as on GitHub.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNER_USER, startJobSandbox, type JobSandbox } from './sandbox.ts';
import { CommandFileError, parseCommandFile, parsePathFile } from './command-files.ts';
import { condition, template, templateMap, templateText, toText, type Contexts, type Json } from './expressions.ts';
import type { ActionsHost } from './host.ts';
import { readOnlyIf, tokenPermissions } from './permissions.ts';
import { actionRuntimeVariables, jobDirs, RUNNER_NAME, runnerContext, runnerVariables } from './runner-env.ts';
import type { JobConclusion, JobRecord, RunRecord, StepConclusion, StepRecord } from './records.ts';
import type { ArtifactService } from './steps/artifacts.ts';
import { executeStep } from './steps/index.ts';
import { StepCancelled, StepFailure, type JobRuntime, type RunnerOptions, type StepInvocation } from './types.ts';
import type { JobDef, StepDef, WorkflowFile } from './workflow-file.ts';

export interface JobRequest {
  host: ActionsHost;
  options: RunnerOptions;
  workflow: WorkflowFile;
  def: JobDef;
  run: RunRecord;
  record: JobRecord;
  artifacts: ArtifactService;
  /** Directory for this job's workspace, temp and command files. */
  dir: string;
  /** github (without token), inputs, vars, needs. */
  contexts: Contexts;
  /** The event payload file (GITHUB_EVENT_PATH). */
  eventPath: string;
  /** Called whenever the job record changed (a step started or ended). */
  changed: () => void;
  /** Records an emulator bug (as opposed to a failing step). */
  reportError: (message: string) => void;
}

export interface JobResult {
  conclusion: JobConclusion;
  outputs: Record<string, string>;
  timedOut: boolean;
  /** `continue-on-error: true` on a failed job: the run does not fail because of it. */
  failureAllowed: boolean;
}

const DEFAULT_JOB_MINUTES = 360;
/** Time the runner gives `if: always()` steps after a cancel (GitHub: 5 minutes). */
const CANCEL_GRACE_MINUTES = 5;

export class JobExecution {
  private readonly abort = new AbortController();
  private timedOut = false;
  private runtime?: JobRuntime;
  readonly done: Promise<JobResult>;

  constructor(private readonly req: JobRequest) {
    this.done = this.execute();
  }

  /** Cancels the job: the running step is stopped, `always()` steps still run. */
  cancel(): void {
    if (this.runtime) this.runtime.status.cancelled = true;
    this.abort.abort();
  }

  private minutes(value: unknown, fallback: number, contexts: Contexts): number {
    const v = value === undefined ? fallback : Number(template(value as string, contexts));
    if (!Number.isFinite(v) || v <= 0) throw new StepFailure(`timeout-minutes must be a positive number, got '${toText(value as Json)}'`);
    return v * (this.req.options.minuteMs ?? 60_000);
  }

  private async execute(): Promise<JobResult> {
    const { req } = this;
    const { record, def } = req;
    const startedAt = new Date().toISOString();
    record.status = 'in_progress';
    record.startedAt = startedAt;
    record.runnerId = 1;
    record.runnerName = RUNNER_NAME;
    const setup = this.addStep('Set up job');
    setup.status = 'in_progress';
    setup.startedAt = startedAt;
    req.changed();

    const secretsList = Object.values(req.options.secrets ?? {}).filter((s) => s.length >= 3);
    const masked = (line: string): string => secretsList.reduce((l, s) => l.split(s).join('***'), line);
    const log = (line: string): void => {
      record.log.push(masked(line));
    };

    let token: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    let sandbox: JobSandbox | undefined;
    try {
      const dirs = jobDirs(req.dir);
      for (const d of [dirs.workspace, dirs.temp, dirs.files, dirs.home, dirs.toolCache]) await mkdir(d, { recursive: true });
      if (req.options.sandbox) {
        const wanted = typeof req.options.sandbox === 'object' ? req.options.sandbox : {};
        const ports = [...new Set([req.host.apiUrl, req.host.serverUrl].map((u) => Number(new URL(u).port)).filter(Boolean).concat(wanted.ports ?? []))];
        sandbox = await startJobSandbox({ dir: req.dir, root: req.options.workRoot ?? tmpdir(), home: dirs.home, ports, without: wanted.without ?? [] });
        log(`The job runs as ${RUNNER_USER} (uid ${sandbox.uid}) in a network and mount namespace of its own (the emulator's sandbox)`);
      }

      // A fork's pull request: read-only token, none of the repository's secrets (forks.ts).
      const fromFork = req.run.headRepository !== undefined;
      const permissions = readOnlyIf(fromFork, tokenPermissions(def.permissions, req.workflow.permissions));
      token = await req.host.mintToken(req.run.owner, req.run.repo, permissions);
      secretsList.push(token);
      // The runtime service's token of this job: JavaScript actions get it, `run:` steps do not.
      const runtimeToken = `rt.${randomBytes(24).toString('base64url')}`;
      secretsList.push(runtimeToken);
      const declared = def.permissions ?? req.workflow.permissions;
      const idToken = declared === 'write-all' || (typeof declared === 'object' && declared['id-token'] === 'write');
      log(`GITHUB_TOKEN Permissions: ${Object.entries(permissions).map(([k, v]) => `${k}: ${v}`).join(', ')}`);

      const github = { ...(req.contexts.github as Record<string, Json>), token, job: def.id, workspace: dirs.workspace, action: '' };
      const rt: JobRuntime = {
        host: req.host,
        options: req.options,
        run: req.run,
        record,
        def,
        workflow: req.workflow,
        artifacts: req.artifacts,
        workspace: dirs.workspace,
        temp: dirs.temp,
        files: dirs.files,
        token,
        actionRuntime: actionRuntimeVariables(req.host.serverUrl, runtimeToken, idToken),
        contexts: {
          ...req.contexts,
          github,
          runner: runnerContext(dirs),
          secrets: { ...(fromFork ? {} : (req.options.secrets ?? {})), GITHUB_TOKEN: token },
          job: { status: 'success', container: {}, services: {} },
          steps: {},
          env: {},
        },
        status: { failed: false, cancelled: false },
        exported: {},
        path: [],
        post: [],
        ...(sandbox ? { sandbox } : {}),
        log,
        mask: (value) => {
          if (value.length >= 3) secretsList.push(value);
        },
      };
      this.runtime = rt;
      if (this.abort.signal.aborted) rt.status.cancelled = true;

      const jobMs = this.minutes(def.timeoutMinutes, DEFAULT_JOB_MINUTES, rt.contexts);
      timer = setTimeout(() => {
        this.timedOut = true;
        log(`##[error]The job running on runner ${RUNNER_NAME} has exceeded the maximum execution time of ${jobMs / (req.options.minuteMs ?? 60_000)} minutes.`);
        this.cancel();
      }, jobMs);

      const baseEnv = runnerVariables(req, dirs);
      if (sandbox) Object.assign(baseEnv, { USER: RUNNER_USER, LOGNAME: RUNNER_USER });

      // workflow env, then job env (which may read the workflow's through `env`)
      const workflowEnv = templateMap(req.workflow.env, rt.contexts);
      const jobEnv = { ...workflowEnv, ...templateMap(def.env, { ...rt.contexts, env: workflowEnv }) };
      this.finishStep(setup, 'success');

      if (def.unsupported.length > 0) {
        throw new StepFailure(`job '${def.id}' uses ${def.unsupported.map((k) => `\`${k}\``).join(', ')}, which the emulator's runner does not support`);
      }

      for (const stepDef of def.steps) await this.runStep(rt, stepDef, baseEnv, jobEnv);
      for (const post of rt.post.reverse()) {
        const rec = this.addStep(post.name);
        const outcome = await this.timed(rec, rt, () => post.run(this.stepSignal(rt), jobMs));
        if (outcome === 'failure') rt.status.failed = true;
        this.finishStep(rec, outcome);
      }

      const outputs = this.outputs(rt, jobEnv);
      const conclusion: JobConclusion = rt.status.cancelled ? 'cancelled' : rt.status.failed ? 'failure' : 'success';
      return this.complete(conclusion, outputs);
    } catch (err) {
      const message = err instanceof StepFailure ? err.message : `the runner failed: ${(err as Error).stack ?? String(err)}`;
      if (!(err instanceof StepFailure)) req.reportError(`job ${record.id} (${def.id}): ${message}`);
      log(`##[error]${message}`);
      record.error = message;
      const open = record.steps.find((s) => s.status !== 'completed');
      if (open) this.finishStep(open, 'failure');
      return this.complete(this.abort.signal.aborted ? 'cancelled' : 'failure', {});
    } finally {
      if (timer) clearTimeout(timer);
      if (token) req.host.revokeToken?.(token);
      await sandbox?.close().catch((err: Error) => req.reportError(`job ${record.id} (${def.id}): closing its sandbox: ${err.message}`));
    }
  }

  private complete(conclusion: JobConclusion, outputs: Record<string, string>): JobResult {
    const { record, def } = this.req;
    const done = this.addStep('Complete job');
    done.startedAt = new Date().toISOString();
    this.finishStep(done, 'success');
    record.outputs = outputs;
    let continueOnError: Json = false;
    try {
      if (this.runtime) continueOnError = template(def.continueOnError, this.runtime.contexts);
    } catch (err) {
      this.runtime?.log(`##[error]continue-on-error: ${(err as Error).message}`);
    }
    return {
      conclusion,
      outputs,
      timedOut: this.timedOut,
      failureAllowed: conclusion === 'failure' && (continueOnError === true || continueOnError === 'true'),
    };
  }

  private addStep(name: string): StepRecord {
    const step: StepRecord = { number: this.req.record.steps.length + 1, name, status: 'queued', conclusion: null, startedAt: null, completedAt: null };
    this.req.record.steps.push(step);
    return step;
  }

  private finishStep(step: StepRecord, conclusion: StepConclusion): void {
    step.status = 'completed';
    step.conclusion = conclusion;
    step.completedAt = new Date().toISOString();
    step.startedAt ??= step.completedAt;
    this.req.changed();
  }

  /** The signal a step runs under: the job's, or after a cancel a fresh one with a grace period. */
  private stepSignal(rt: JobRuntime): AbortSignal {
    if (!rt.status.cancelled) return this.abort.signal;
    return AbortSignal.timeout(CANCEL_GRACE_MINUTES * (this.req.options.minuteMs ?? 60_000));
  }

  private async timed(rec: StepRecord, rt: JobRuntime, body: () => Promise<void>): Promise<'success' | 'failure' | 'cancelled'> {
    rec.status = 'in_progress';
    rec.startedAt = new Date().toISOString();
    this.req.changed();
    rt.log(`##[group]${rec.name}`);
    let outcome: 'success' | 'failure' | 'cancelled' = 'success';
    try {
      await body();
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      outcome = err instanceof StepCancelled ? 'cancelled' : 'failure';
      rt.log(`##[error]${err.message}`);
    }
    rt.log('##[endgroup]');
    return outcome;
  }

  private async runStep(rt: JobRuntime, def: StepDef, baseEnv: Record<string, string>, jobEnv: Record<string, string>): Promise<void> {
    const ctxNoEnv: Contexts = { ...rt.contexts, job: { status: jobStatus(rt), container: {}, services: {} } };
    const envBefore = { ...jobEnv, ...rt.exported };
    const fallbackName = def.run !== undefined ? `Run ${def.run.trim().split('\n')[0]}` : `Run ${def.uses}`;
    const stepsCtx = rt.contexts.steps as Record<string, Json>;
    const record = (outcome: StepConclusion, conclusion: StepConclusion, outputs: Record<string, string>): void => {
      if (def.id) stepsCtx[def.id] = { outputs, outcome, conclusion };
    };
    let stepEnv: Record<string, string>;
    let contexts: Contexts;
    let name: string;
    let run: boolean;
    try {
      stepEnv = { ...envBefore, ...templateMap(def.env, { ...ctxNoEnv, env: envBefore }, rt.status) };
      contexts = { ...ctxNoEnv, env: stepEnv };
      name = def.name !== undefined ? templateText(def.name, contexts) : fallbackName;
      run = condition(def.if, contexts, rt.status);
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      const rec = this.addStep(def.name ?? fallbackName);
      rt.log(`##[error]step '${rec.name}': ${err.message}`);
      rt.status.failed = true;
      this.finishStep(rec, 'failure');
      record('failure', 'failure', {});
      return;
    }
    const rec = this.addStep(name);
    if (!run) {
      this.finishStep(rec, 'skipped');
      record('skipped', 'skipped', {});
      return;
    }

    const files = {
      output: join(rt.files, `output_${rec.number}`),
      env: join(rt.files, `env_${rec.number}`),
      path: join(rt.files, `path_${rec.number}`),
      state: join(rt.files, `state_${rec.number}`),
      summary: join(rt.files, `summary_${rec.number}`),
    };
    for (const f of Object.values(files)) await writeFile(f, '');
    // The runner's own files for the step's process to write, as the job's user.
    if (rt.sandbox) for (const f of Object.values(files)) await rt.sandbox.own(f);
    const env: Record<string, string> = {
      ...baseEnv,
      ...stepEnv,
      // the runner's own variables cannot be overridden by env:
      ...pick(baseEnv, (k) => k.startsWith('GITHUB_') || k.startsWith('RUNNER_')),
      GITHUB_ACTION: def.id ?? `__run_${def.index + 1}`,
      GITHUB_OUTPUT: files.output,
      GITHUB_ENV: files.env,
      GITHUB_PATH: files.path,
      GITHUB_STATE: files.state,
      GITHUB_STEP_SUMMARY: files.summary,
    };
    if (rt.path.length > 0) env.PATH = [...rt.path, env.PATH ?? ''].join(':');

    let outputs: Record<string, string> = {};
    const outcome = await this.timed(rec, rt, async () => {
      const stepMs = def.timeoutMinutes === undefined ? 2 ** 31 - 1 : this.minutes(def.timeoutMinutes, 0, contexts);
      const invocation: StepInvocation = {
        job: rt,
        def,
        name,
        env,
        with: templateMap(def.with, contexts, rt.status),
        ...(def.run !== undefined ? { script: templateText(def.run, contexts, rt.status) } : {}),
        files,
        contexts,
        timeoutMs: stepMs,
        signal: this.stepSignal(rt),
      };
      const result = await executeStep(invocation);
      try {
        outputs = { ...parseCommandFile(await readFile(files.output, 'utf8'), 'GITHUB_OUTPUT'), ...(result?.outputs ?? {}) };
        for (const [name, value] of Object.entries(parseCommandFile(await readFile(files.env, 'utf8'), 'GITHUB_ENV'))) {
          // GitHub's runner refuses NODE_OPTIONS here (it would run code inside every later
          // node action): an error line, the variable dropped, the step not failed. actions/runner
          // SetEnvFileCommand; public reports quote the message (jhipster CI notes, nektos/act tests).
          if (name.toUpperCase() === 'NODE_OPTIONS') rt.log("##[error]Can't store NODE_OPTIONS output parameter using '$GITHUB_ENV' command.");
          else rt.exported[name] = value;
        }
        rt.path.unshift(...parsePathFile(await readFile(files.path, 'utf8')).reverse());
      } catch (err) {
        if (err instanceof CommandFileError) throw new StepFailure(err.message);
        throw err;
      }
      const summary = await readFile(files.summary, 'utf8');
      if (summary !== '') rt.record.summary += summary;
    });

    const continueOnError = template(def.continueOnError, contexts);
    const allowed = continueOnError === true || continueOnError === 'true';
    const conclusion: StepConclusion = outcome === 'failure' && allowed ? 'success' : outcome;
    if (conclusion === 'failure') rt.status.failed = true;
    this.finishStep(rec, conclusion);
    record(outcome, conclusion, outputs);
  }

  private outputs(rt: JobRuntime, jobEnv: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.req.def.outputs)) {
      try {
        out[key] = templateText(value, { ...rt.contexts, env: jobEnv }, rt.status);
      } catch (err) {
        rt.log(`##[warning]output '${key}': ${(err as Error).message}`);
      }
    }
    return out;
  }
}

function jobStatus(rt: JobRuntime): string {
  return rt.status.cancelled ? 'cancelled' : rt.status.failed ? 'failure' : 'success';
}

function pick(obj: Record<string, string>, keep: (k: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keep(k)));
}
