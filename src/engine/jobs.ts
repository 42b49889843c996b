// Worker jobs: dispatching an attempt (within the budget), taking its result
// (validated against the outputs schema), retrying failed attempts, and merging
// the work of writing jobs into the run branch one at a time.
import type { AgentSpec, JsonSchema, Step } from '../manifest/types.ts';
import { addCost, costCap, dispatchBlocked } from './budget.ts';
import { agentFailed, agentWorked, chooseAgent } from './breaker.ts';
import { beginStepCheck, closeStepCheck } from './checks-runs.ts';
import type { DispatchWorker } from './commands.ts';
import type { Draft } from './draft.ts';
import type { JobRef, WorkerFailed, WorkerFinished, MergeCompleted, MergeConflicted, MergeRefused, WorkerDispatched } from './events.ts';
import { emitCancelWorker, failStep, stopRun } from './lifecycle.ts';
import { fixBranch, jobKey, stepBranch, workerRunName } from './naming.ts';
import { REVIEW_OUTPUTS_SCHEMA, outputsError } from './outputs.ts';
import { attemptMinutes, withRaisedTurns } from './raise.ts';
import { sandboxRequest } from './sandbox-request.ts';
import { sandboxSummary } from './sandbox-summary.ts';
import { renderPrompt, renderText, type ItemScope, type Rendered } from './scope.ts';
import { fixPrompt, reviewPrompt } from './prompts.ts';
import { handlerFor } from './steps/index.ts';
import { keptFiles } from './kept.ts';
import type { JobState, Json, StopLimit } from './types.ts';

/** The step whose agent or command a job runs: a fix round runs the gate's `fix` step. */
function workerDef(d: Draft, gate: Step, job: JobState): Step | undefined {
  if (job.kind !== 'fix') return gate;
  return 'fix' in gate && gate.fix ? d.stepDef(gate.fix) : undefined;
}

function retriesFor(d: Draft, step: Step, job: JobState): number {
  return workerDef(d, step, job)?.retries ?? step.retries;
}

function writesFor(d: Draft, step: Step, job: JobState): boolean {
  if (job.kind === 'review') return false;
  if (job.kind === 'fix') return true;
  return step.writes;
}

function schemaFor(step: Step, job: JobState): JsonSchema | null {
  if (job.kind === 'review') return REVIEW_OUTPUTS_SCHEMA;
  if (job.kind === 'fix') return null;
  return (step.kind === 'agent' || step.kind === 'run') && step.outputs !== undefined ? step.outputs : null;
}

/** Adds (or reopens) a job in a step and dispatches it. */
export function openJob(d: Draft, stepId: string, job: JobState): void {
  const st = d.step(stepId);
  const existing = st.jobs.some((j) => j.slot === job.slot);
  d.setStep(stepId, { jobs: existing ? st.jobs.map((j) => (j.slot === job.slot ? job : j)) : [...st.jobs, job] });
  dispatchJob(d, stepId, job.slot);
}

/** Whether a step's check run follows its attempts (a plain agent/run step) or the step as a whole. */
export const checkPerAttempt = (d: Draft, stepId: string): boolean => {
  const def = d.stepDef(stepId);
  return (def?.kind === 'agent' || def?.kind === 'run') && !d.step(stepId).fanOut;
};

/**
 * Dispatches the next attempt of a queued job. Returns false when it could not: the
 * budget forbids it (the run stops) or its prompt cannot be rendered (the step fails).
 */
export function dispatchJob(d: Draft, stepId: string, slot: string): boolean {
  if (d.state.status !== 'running') return false;
  const step = d.stepDef(stepId)!;
  const st = d.step(stepId);
  const job = d.job(stepId, slot)!;
  const blocked = dispatchBlocked(d, stepId);
  if (blocked) {
    stopRun(d, blocked);
    return false;
  }
  const def = workerDef(d, step, job);
  if (!def) {
    failStep(d, stepId, `its fix step does not exist`);
    return false;
  }
  const what = buildWork(d, step, def, job);
  if (!what.ok) {
    failStep(d, stepId, what.error);
    return false;
  }
  const runId = d.state.runId;
  const attempt = (st.attempts[slot] ?? 0) + 1;
  // While the step's agent is set aside (its backend keeps failing), its fallback runs the attempt.
  const runs = what.agent === null ? null : chooseAgent(d, what.agent, { step: stepId, slot, attempt });
  const fallback = runs !== null && runs !== what.agent ? runs : null;
  // Limits `/baton retry --minutes/--turns` raised for this step (raise.ts) hold for every attempt after.
  const backend = withRaisedTurns(fallback !== null ? backendOf(d, fallback) : what.backend, st);
  const writes = writesFor(d, step, job);
  const timeoutMinutes = attemptMinutes(def, backend, st);
  const base = job.checkpoint ?? d.state.head;
  const branch = !writes
    ? null
    : job.kind === 'fix'
      ? fixBranch(runId, stepId, Number(slot.slice('fix-'.length)))
      : stepBranch(runId, stepId, job.index);
  const command: DispatchWorker = {
    type: 'dispatch-worker',
    runId,
    key: jobKey(runId, stepId, slot, attempt),
    workflow: d.workflow.name,
    step: stepId,
    slot,
    index: job.index,
    item: job.item,
    attempt,
    kind: job.kind,
    runName: workerRunName(runId, stepId, slot, attempt),
    agent: runs,
    backend,
    ...(fallback !== null && { fallbackFor: what.agent! }),
    prompt: what.prompt,
    command: what.command,
    outputsSchema: schemaFor(step, job),
    base,
    // Agent configuration comes from the default branch (the manifests' commit), never the run's head: a fork's or a pull request's own CLAUDE.md, hooks and MCP servers do not steer the agent.
    runBase: d.state.manifestCommit,
    resume: job.checkpoint !== null,
    ...(job.checkpoint !== null && job.limit && { stoppedBy: job.limit }),
    branch,
    writes,
    env: what.env,
    timeoutMinutes,
    previousError: job.lastError,
    feedback: job.feedback,
    // What the agent that runs (a fallback's own list) or the command may reach, and its limits.
    sandbox: sandboxRequest(d.workflow, def, runs, d.state.fork === true),
    // What the attempt may spend on its model: the proxy refuses its model requests past it.
    costCap: costCap(d),
  };
  d.state.budget = { ...d.state.budget, steps: d.state.budget.steps + 1 };
  d.setStep(stepId, { attempts: { ...st.attempts, [slot]: attempt } });
  d.setJob(stepId, slot, {
    status: 'running',
    attempt,
    dispatchedAt: d.now,
    deadline: timeoutMinutes === null ? null : d.now + timeoutMinutes * 60_000,
    base,
    commit: null,
    outputs: null,
    workflowRunId: null,
    url: null,
    fallback,
  });
  if (checkPerAttempt(d, stepId)) {
    // A plain step gets one check run per attempt, like a re-run job in Actions, written
    // when the attempt ends (checks-runs.ts): the previous one's now, this one's later.
    if (st.check && st.check.attempt !== attempt) closeStepCheck(d, stepId, 'failure', `attempt ${st.check.attempt} ${job.refused ? 'refused' : 'failed'}`, job.lastError ?? '');
    beginStepCheck(d, stepId, attempt);
  }
  d.emit(command);
  return true;
}

interface Task {
  ok: true;
  agent: string | null;
  backend: AgentSpec | null;
  prompt: string | null;
  command: string | null;
}
type Work = (Task & { env: Record<string, string> }) | { ok: false; error: string };

/**
 * A worker's environment, each value rendered. This is how text an issue or an agent wrote
 * reaches a command (the validator refuses it inside `run:`): as a variable, which a shell
 * expands without running, and which nothing re-interpolates on the way.
 */
function renderEnv(d: Draft, env: Record<string, string>, scope: ItemScope): Rendered<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(env)) {
    const r = renderText(d, template, scope);
    if (!r.ok) return { ok: false, error: `env ${name}: ${r.error}` };
    out[name] = r.value;
  }
  return { ok: true, value: out };
}

function backendOf(d: Draft, name: string): AgentSpec | null {
  return d.workflow.agents[name] ?? null;
}

/** What the worker runs: the backend and rendered prompt, or the rendered command. */
function buildWork(d: Draft, step: Step, def: Step, job: JobState): Work {
  const scope = job.index === null ? {} : { item: job.item, index: job.index };
  const env = renderEnv(d, def.env, job.kind === 'fix' ? {} : scope);
  if (!env.ok) return env;
  const work = buildTask(d, step, def, job, scope);
  return work.ok ? { ...work, env: env.value } : work;
}

function buildTask(d: Draft, step: Step, def: Step, job: JobState, scope: ItemScope): Task | { ok: false; error: string } {
  if (job.kind === 'review' && step.kind === 'review') {
    const extra = step.prompt === undefined ? { ok: true as const, value: '' } : renderPrompt(d, step.prompt);
    if (!extra.ok) return { ok: false, error: `prompt: ${extra.error}` };
    return { ok: true, agent: step.agent, backend: backendOf(d, step.agent), prompt: reviewPrompt(d, extra.value), command: null };
  }
  if (job.kind === 'fix') {
    const feedback = job.feedback;
    if (def.kind === 'run') {
      const cmd = renderText(d, def.run);
      if (!cmd.ok) return { ok: false, error: `run: ${cmd.error}` };
      return { ok: true, agent: null, backend: null, prompt: feedback ? fixPrompt(d, step.id, def.id, null, feedback) : null, command: cmd.value };
    }
    if (def.kind !== 'agent') return { ok: false, error: `its fix step \`${def.id}\` is not an agent or run step` };
    // The original task gives the fixer context; a fan-out prompt (reading `item`) has none to give.
    const task = renderPrompt(d, def.prompt);
    return {
      ok: true,
      agent: def.agent,
      backend: backendOf(d, def.agent),
      prompt: fixPrompt(d, step.id, def.id, task.ok ? task.value : null, feedback),
      command: null,
    };
  }
  if (def.kind === 'agent') {
    const prompt = renderPrompt(d, def.prompt, scope);
    if (!prompt.ok) return { ok: false, error: `prompt: ${prompt.error}` };
    return { ok: true, agent: def.agent, backend: backendOf(d, def.agent), prompt: prompt.value, command: null };
  }
  if (def.kind === 'run') {
    const cmd = renderText(d, def.run, scope);
    if (!cmd.ok) return { ok: false, error: `run: ${cmd.error}` };
    return { ok: true, agent: null, backend: null, prompt: null, command: cmd.value };
  }
  return { ok: false, error: `a ${def.kind} step has no worker` };
}

/** The job an event talks about, if it is the current attempt and in the expected status. */
function currentJob(d: Draft, ref: JobRef, status: JobState['status']): JobState | undefined {
  const job = d.findStep(ref.step)?.jobs.find((j) => j.slot === ref.slot);
  return job && job.attempt === ref.attempt && job.status === status ? job : undefined;
}

export function onWorkerDispatched(d: Draft, ev: WorkerDispatched): void {
  const job = d.findStep(ev.step)?.jobs.find((j) => j.slot === ev.slot);
  if (!job || job.attempt !== ev.attempt) return;
  d.setJob(ev.step, ev.slot, { workflowRunId: ev.workflowRunId ?? job.workflowRunId, url: ev.url ?? job.url });
}

export function onWorkerFinished(d: Draft, ev: WorkerFinished): void {
  addCost(d, ev.usage, ev.step);
  if (d.state.status !== 'running') return;
  const job = currentJob(d, ev, 'running');
  if (!job) return;
  const step = d.stepDef(ev.step)!;
  d.setJob(ev.step, ev.slot, { costUsd: job.costUsd + (ev.usage?.costUsd ?? 0), ...sandboxLine(ev) });
  // The backend answered: whatever the outputs are worth, it works.
  agentWorked(d, attemptAgent(d, step, job));
  const invalid = outputsError(schemaFor(step, job), ev.outputs ?? null);
  if (invalid) {
    attemptFailed(d, ev.step, ev.slot, `the outputs do not match the step's schema: ${invalid}`, job.checkpoint);
    return;
  }
  // Resumed from a checkpoint and nothing more to change: the checkpoint is the attempt's work.
  const commit = ev.commit ?? (job.kind !== 'fix' ? job.checkpoint : null);
  // A writing agent's deliverable is its commit; a `run` step's is its exit status and outputs.
  if (writesFor(d, step, job) && commit === null && job.kind === 'agent' && step.noChanges !== 'succeed') {
    attemptFailed(d, ev.step, ev.slot, NOTHING_CHANGED, null);
    return;
  }
  if (writesFor(d, step, job) && commit !== null) {
    d.setJob(ev.step, ev.slot, { status: 'merge-queued', outputs: ev.outputs, commit, deadline: null });
    d.state.mergeQueue = [...d.state.mergeQueue, `${ev.step}/${ev.slot}`];
    return;
  }
  jobDone(d, ev.step, ev.slot, ev.outputs ?? null);
}

/** Why a writing step's attempt that changed no file failed (also the re-prompt's reason). */
export const NOTHING_CHANGED =
  'the attempt finished without changing any file, and a writing step is done only with its commit (a step that may have nothing to change says `no-changes: succeed`)';

/** The attempt's sandbox line for the step's record, when its worker reported one. */
function sandboxLine(ev: WorkerFinished | WorkerFailed): Pick<JobState, 'sandbox'> {
  return ev.sandbox ? { sandbox: sandboxSummary(ev.sandbox) } : {};
}

/** How each reason reads before the host's error; a refusal's error says it all (who refused what, and why). */
const FAILURE_TEXT: Record<WorkerFailed['reason'], string | null> = {
  refused: null,
  crashed: 'the worker crashed',
  'timed-out': 'the worker ran out of time',
  cancelled: 'the worker job was cancelled outside baton',
  gone: 'the worker run is gone',
  'dispatch-failed': 'the worker could not be dispatched',
};

export function onWorkerFailed(d: Draft, ev: WorkerFailed): void {
  addCost(d, ev.usage, ev.step);
  if (d.state.status !== 'running') return;
  const job = currentJob(d, ev, 'running');
  if (!job) return;
  d.setJob(ev.step, ev.slot, { costUsd: job.costUsd + (ev.usage?.costUsd ?? 0), ...sandboxLine(ev) });
  const lead = FAILURE_TEXT[ev.reason];
  const text = lead === null ? (ev.error ?? 'the worker\'s result was refused') : lead + (ev.error ? `: ${ev.error}` : '');
  const counts = agentFailed(d, attemptAgent(d, d.stepDef(ev.step)!, job), ev, ev.infrastructure);
  // A limit stopped the agent (the worker's own time limit reports `timed-out`): what it kept, for the record and a resume.
  const limit = ev.limit ?? (ev.reason === 'timed-out' ? 'time' : null);
  if (ev.checkpoint) d.setJob(ev.step, ev.slot, { kept: keptFiles(ev.kept) });
  attemptFailed(d, ev.step, ev.slot, text, ev.checkpoint ?? job.checkpoint, counts, ev.reason === 'refused', limit);
}

/** The agent that ran a job's current attempt: its fallback, or the agent its step names (null for commands). */
function attemptAgent(d: Draft, step: Step, job: JobState): string | null {
  if (job.fallback) return job.fallback;
  if (job.kind === 'review') return step.kind === 'review' ? step.agent : null;
  const def = workerDef(d, step, job);
  return def?.kind === 'agent' ? def.agent : null;
}

/** A job's result is in (and merged when it writes): the step kind decides what follows. */
function jobDone(d: Draft, stepId: string, slot: string, outputs: Json): void {
  const job = d.setJob(stepId, slot, { status: 'succeeded', outputs, deadline: null, checkpoint: null, lastError: null, refused: false, limit: null, kept: null });
  const step = d.stepDef(stepId)!;
  if (d.step(stepId).status === 'running') handlerFor(step).jobSucceeded(d, step, job);
}

/**
 * One attempt failed. Within `retries` the job is dispatched again at once (from the
 * checkpoint if the worker left one, with the error for the re-prompt); else the step
 * kind decides (usually the step fails).
 *
 * A `refused` attempt (its result was refused: protected paths, GitHub's workflow-file rule)
 * is retried the same way. The refusal is certain for that result, but not for the next one:
 * the re-prompt names what was refused, and the agent may well do the work without it. The
 * step's `retries` bound what that costs.
 */
export function attemptFailed(d: Draft, stepId: string, slot: string, error: string, checkpoint: string | null, counts = true, refused = false, limit: StopLimit | null = null): void {
  const step = d.stepDef(stepId)!;
  const before = d.job(stepId, slot)!;
  // `counts` false: the backend failed before any work and a fallback stands by (breaker.ts).
  const failures = before.failures + (counts ? 1 : 0);
  const job = d.setJob(stepId, slot, { status: 'queued', failures, lastError: error, refused, checkpoint, deadline: null, limit, ...(checkpoint === null && { kept: null }) });
  if (failures <= retriesFor(d, step, job)) {
    dispatchJob(d, stepId, slot);
    return;
  }
  const failed = d.setJob(stepId, slot, { status: 'failed' });
  if (d.step(stepId).status === 'running') handlerFor(step).jobFailed(d, step, failed);
}

/** Times out running attempts whose deadline has passed. */
export function timeOutJobs(d: Draft, stepId: string): void {
  for (const job of d.step(stepId).jobs) {
    if (d.state.status !== 'running') return;
    if (job.status !== 'running' || job.deadline === null || d.now < job.deadline) continue;
    const minutes = Math.round((job.deadline - (job.dispatchedAt ?? job.deadline)) / 60_000);
    emitCancelWorker(d, stepId, job);
    attemptFailed(d, stepId, job.slot, `timed out after ${minutes} minutes`, job.checkpoint, true, false, 'time');
  }
}

/** Sends the next queued merge when none is in flight (merges into the run branch are serialised). */
export function pumpMerges(d: Draft): void {
  while (d.state.status === 'running' && d.state.merging === null && d.state.mergeQueue.length > 0) {
    const [ref, ...rest] = d.state.mergeQueue;
    d.state.mergeQueue = rest;
    const [stepId, slot] = splitRef(ref!);
    const job = d.job(stepId, slot);
    if (!job || job.status !== 'merge-queued' || job.commit === null) continue;
    const runId = d.state.runId;
    const branch =
      job.kind === 'fix' ? fixBranch(runId, stepId, Number(slot.slice('fix-'.length))) : stepBranch(runId, stepId, job.index);
    d.emit({
      type: 'merge-step-branch',
      runId,
      key: `${jobKey(runId, stepId, slot, job.attempt)}/merge`,
      step: stepId,
      slot,
      attempt: job.attempt,
      branch,
      commit: job.commit,
      into: d.state.runBranch,
      message: `baton: merge ${stepId}${job.index === null ? '' : ` #${job.index}`} (attempt ${job.attempt}) of run ${runId}`,
    });
    d.setJob(stepId, slot, { status: 'merging' });
    d.state.merging = { step: stepId, slot, attempt: job.attempt };
  }
}

function splitRef(ref: string): [string, string] {
  const i = ref.lastIndexOf('/');
  return [ref.slice(0, i), ref.slice(i + 1)];
}

const isMerging = (d: Draft, ref: JobRef): boolean =>
  d.state.merging !== null &&
  d.state.merging.step === ref.step &&
  d.state.merging.slot === ref.slot &&
  d.state.merging.attempt === ref.attempt;

export function onMergeCompleted(d: Draft, ev: MergeCompleted): void {
  if (!isMerging(d, ev)) return;
  // Whatever happened to the run or the step meanwhile, the merge happened: the head moves on.
  d.state.merging = null;
  d.state.head = ev.head;
  const job = currentJob(d, ev, 'merging');
  if (!job) return;
  if (d.state.status !== 'running') {
    d.setJob(ev.step, ev.slot, { status: 'succeeded' });
    return;
  }
  jobDone(d, ev.step, ev.slot, job.outputs);
}

/** The merge did not happen (a conflict, or the host refused it): the attempt fails, saying why. */
export function onMergeFailed(d: Draft, ev: MergeConflicted | MergeRefused): void {
  if (!isMerging(d, ev)) return;
  d.state.merging = null;
  const job = currentJob(d, ev, 'merging');
  if (!job) return;
  const conflict = ev.type === 'merge.conflicted';
  if (d.state.status !== 'running') {
    d.setJob(ev.step, ev.slot, { status: 'failed', lastError: conflict ? 'merge conflict' : ev.error, refused: !conflict });
    return;
  }
  // The retry starts from the new head, not from the conflicting commit.
  const why = conflict
    ? `merge conflict with the run branch in ${ev.files.join(', ') || 'unknown files'}${ev.branch ? ` (the attempt's commit is on ${ev.branch})` : ''}`
    : ev.error;
  attemptFailed(d, ev.step, ev.slot, why, null, true, !conflict);
}
