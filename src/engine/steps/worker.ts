// `agent` and `run` steps: one worker job, or one per `for-each` item with at most
// `max-parallel` running. A fanned-out step's outputs are its items' outputs, in order.
import type { AgentStep, RunStep } from '../../manifest/types.ts';
import { DEFAULT_MAX_ITEMS } from '../budget.ts';
import { beginStepCheck } from '../checks-runs.ts';
import { deliver } from '../deliverable.ts';
import type { Draft } from '../draft.ts';
import { dispatchJob } from '../jobs.ts';
import { keptNote } from '../kept.ts';
import { failStep, succeedStep } from '../lifecycle.ts';
import { render } from '../scope.ts';
import { copyJob, newJob } from '../state.ts';
import type { JobState } from '../types.ts';
import type { StepKindHandler } from './kind.ts';

type WorkerStep = AgentStep | RunStep;

function start(d: Draft, step: WorkerStep): void {
  const st = d.step(step.id);
  const previous = st.attempts;
  if (step.forEach === undefined) {
    d.setStep(step.id, { fanOut: false, jobs: [resumed(newJob('0', step.kind, null, null, previous['0'] ?? 0), st.jobs)] });
  } else {
    const items = render(d, step.forEach);
    if (!items.ok) return failStep(d, step.id, `for-each: ${items.error}`);
    if (!Array.isArray(items.value)) {
      return failStep(d, step.id, `for-each: expected an array, got ${items.value === null ? 'null' : typeof items.value}`);
    }
    // An agent's output decides how many items there are: too many fail the step before any dispatch.
    const max = step.maxItems ?? DEFAULT_MAX_ITEMS;
    if (items.value.length > max) {
      return failStep(
        d,
        step.id,
        `for-each: ${items.value.length} items, more than the ${max} this step may fan out to${step.maxItems === undefined ? ' (the default)' : ''}; ` +
          `no worker was started. If the step really needs more, raise \`max-items\` on step \`${step.id}\``,
      );
    }
    const jobs = items.value.map((item, i) => resumed(newJob(String(i), step.kind, i, item, previous[String(i)] ?? 0), st.jobs));
    d.setStep(step.id, { fanOut: true, jobs });
    if (jobs.length === 0) return succeedStep(d, step.id, [], 'nothing to do: for-each gave no items');
    // Written when the step ends: meanwhile its items' worker jobs show as running checks.
    beginStepCheck(d, step.id, st.opening);
  }
  update(d, step);
}

/** Dispatches queued jobs while there is room under max-parallel. */
function update(d: Draft, step: WorkerStep): void {
  const st = d.step(step.id);
  const limit = st.fanOut ? (step.maxParallel ?? Number.POSITIVE_INFINITY) : 1;
  let running = st.jobs.filter((j) => j.status === 'running').length;
  for (const job of st.jobs) {
    if (running >= limit || d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
    if (job.status !== 'queued') continue;
    if (dispatchJob(d, step.id, job.slot)) running++;
  }
}

function jobSucceeded(d: Draft, step: WorkerStep): void {
  const st = d.step(step.id);
  if (st.jobs.some((j) => j.status !== 'succeeded')) return update(d, step);
  const outputs = st.fanOut ? st.jobs.map((j) => j.outputs) : st.jobs[0]!.outputs;
  const title = st.fanOut ? `${st.jobs.length} items done` : `succeeded on attempt ${st.jobs[0]!.attempt}`;
  // The step's outputs now hold the jobs' outputs: don't carry them twice in the record.
  d.setStep(step.id, { jobs: st.jobs.map((j) => Object.assign(copyJob(j), { outputs: null })) });
  // A writing step's commits are merged: done once the run's head is read back on its branch,
  // with a change from where the step started (deliverable.ts). Nothing changed is done at once
  // only where the manifest allows it (`no-changes: succeed`; jobs.ts refuses it otherwise).
  const wrote = step.writes && st.jobs.some((j) => j.commit !== null);
  const body = outputs === null ? '' : '```json\n' + JSON.stringify(outputs, null, 2) + '\n```';
  if (!wrote) return succeedStep(d, step.id, outputs, step.writes && step.kind === 'agent' ? `${title}: nothing to change (\`no-changes: succeed\`)` : title, body);
  const from = st.jobs[0]!.base ?? d.state.head;
  deliver(d, step.id, { kind: 'commit', branch: d.state.runBranch, head: d.state.head, from }, outputs, title, body);
}

function jobFailed(d: Draft, step: WorkerStep, job: JobState): void {
  const attempts = job.failures === 1 ? '1 attempt' : `${job.failures} attempts`;
  // A result refused (not a crash or a bad answer) reads as such: what fixes it is different.
  const verdict = job.refused ? 'refused' : 'failed';
  const which = d.step(step.id).fanOut ? `item ${job.index} ${verdict}` : verdict;
  const kept = keptNote(d.state.runId, step.id, job);
  failStep(d, step.id, `${which} after ${attempts}: ${job.lastError ?? 'unknown error'}${kept ? ` — ${kept}` : ''}`);
}

/**
 * A retried step's job whose last attempt a limit stopped with its work kept (the same item)
 * starts from that checkpoint, not from scratch: `/baton retry <step> --turns +20` continues.
 */
function resumed(job: JobState, previous: readonly JobState[]): JobState {
  const was = previous.find((j) => j.slot === job.slot);
  if (!was?.limit || was.checkpoint === null || JSON.stringify(was.item) !== JSON.stringify(job.item)) return job;
  return { ...job, checkpoint: was.checkpoint, limit: was.limit, kept: was.kept ?? null, lastError: was.lastError };
}

export const workerStep: StepKindHandler<WorkerStep> = { start, update, jobSucceeded, jobFailed };
