// mode: agent — one worker attempt in the checkout. The job holds a read-only token: the
// work leaves as the result artifact (the next workflow step uploads the result dir). An
// agent that failed is not a failed step — the artifact says what happened — but a broken
// setup (no CLI, no key, a bad task) is, after writing a result that says why.
// It runs from a `run:` step (`"$BATON_NODE" "$BATON_ENTRY"`, inputs as INPUT_MODE and
// INPUT_TASK), never as a `uses:` step: the agent is its child and can read its
// environment, so this process must hold no token; it refuses to start an agent otherwise.
import * as core from '@actions/core';
import { WorkerSetupError } from '../../agents/preflight.ts';
import { RESULT_VERSION, writeResultDir, type ResultBundle } from '../../agents/result.ts';
import { readTask } from '../../agents/task.ts';
import { filesRefusal, ownStamp, skewRefusal, workerStamp } from '../../compat.ts';
import { runWorker, type WorkerRun } from '../../agents/worker.ts';
import type { DispatchWorker } from '../../engine/commands.ts';
import type { InfrastructureCause } from '../../engine/events.ts';
import { redactor, secretValues } from '../../agents/redact.ts';
import { seal, type Sealed } from '../../agents/leak-check.ts';
import { snapshotCommandFiles } from '../command-files.ts';
import { agentEnvironment, tokensHeld } from '../env.ts';
import type { Inputs } from '../inputs.ts';
import { renderSummary } from '../summary.ts';
import { protectedPaths, protectedPathsMessage } from '../../agents/protected-paths.ts';

export async function agentMode(inputs: Inputs): Promise<void> {
  if (!inputs.task.trim()) throw new Error('mode `agent` needs the `task` input: pass the `task` the worker workflow was dispatched with');
  const { task, from } = readTask(inputs.task);
  const who = task.backend ? `${task.backend.uses}${task.backend.model ? ` (${task.backend.model})` : ''}` : 'shell';
  core.info(`baton agent: ${task.runName} · ${task.kind} step ${task.step}${task.index === null ? '' : ` [${task.index}]`} with ${who} in ${inputs.workspace}`);

  // The runner signals a cancelled or timed-out job; stop the agent and still write what it did.
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => () => stop.abort(`the job was cancelled or hit its time limit (${signal})`);
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((s) => [s, onSignal(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);

  const started = Date.now();
  // Every secret this process holds, given to the agent or not, is hidden from what it writes.
  const secrets = secretValues(process.env);
  const hide = redactor(secrets);
  let run: Sealed<WorkerRun>;
  try {
    // A worker that does not meet the run, or runs under files too old for it, stops before the
    // agent spends anything: the run's baton would refuse its result anyway (compat.ts).
    const skew = skewRefusal(from, ownStamp(), 'The worker', task.step) ?? (from && filesRefusal(from, workerStamp(process.env).files, task.step));
    if (skew) throw new WorkerSetupError(skew);
    const held = tokensHeld(process.env);
    if (held.length) {
      throw new WorkerSetupError(
        `mode \`agent\` was started by a process holding ${held.join(', ')}, which the agent could read from its parent's /proc/<pid>/environ; ` +
          'run it from a `run:` step as the worker workflow `baton init` writes does (a `mode: locate` step, then `"$BATON_NODE" "$BATON_ENTRY"`): regenerate .github/workflows/baton-worker.yml with `baton init`',
      );
    }
    const commandFiles = snapshotCommandFiles(process.env);
    try {
      run = await runWorker(task, { cwd: inputs.workspace, env: agentEnvironment(process.env), signal: stop.signal, secrets });
    } finally {
      // The agent's tree is gone by now: nothing can write them again.
      commandFiles.restore();
    }
  } catch (err) {
    if (!(err instanceof WorkerSetupError)) throw new Error(hide.text((err as Error).message), { cause: err });
    // Nothing ran: the result still tells the app why, then the step fails.
    const message = hide.text(err.message);
    const failure = (error: string) => setupFailure(task, error, Date.now() - started, err.infrastructure);
    const bundle = seal(failure(message), secrets, failure);
    writeResultDir(inputs.resultDir, stamped(bundle));
    await report(task, { ...bundle, prompt: task.prompt ?? task.command ?? '', diffstat: [] }, inputs);
    throw new WorkerSetupError(bundle.result.error ?? message);
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }

  writeResultDir(inputs.resultDir, stamped(run));
  await report(task, run, inputs);
  const r = run.result;
  const line = `baton agent: ${r.status} after ${Math.round(r.durationMs / 1000)}s, ${r.changes.length} file${r.changes.length === 1 ? '' : 's'} changed`;
  if (r.status === 'succeeded') core.info(line);
  else core.warning(`${line}: ${r.error ?? 'no reason given'}`);
  // Said here too, in the job that made them: the applier refuses them unless the step opts in.
  const guarded = protectedPaths(r.changes.map((c) => c.path));
  if (guarded.length) core.warning(`baton agent: ${protectedPathsMessage(guarded).replace("the worker's result changes", 'this result changes')}`);
}

/** Every result says which baton wrote it and under which workflow files (compat.ts): versions, never secrets. */
function stamped<T extends Sealed<ResultBundle>>(bundle: T): T {
  return { ...bundle, result: { ...bundle.result, baton: workerStamp(process.env) } } as T;
}

function setupFailure(task: DispatchWorker, error: string, durationMs: number, infrastructure?: InfrastructureCause): ResultBundle {
  return {
    result: {
      version: RESULT_VERSION,
      run: task.runId,
      step: task.step,
      slot: task.slot,
      attempt: task.attempt,
      status: 'crashed',
      outputs: null,
      error,
      usage: {},
      base: task.base,
      changes: [],
      backend: task.backend?.uses ?? 'command',
      durationMs,
      // No CLI or no credentials on this runner: the App may hand the next attempts to a fallback.
      ...(infrastructure && { infrastructure }),
    },
    files: new Map(),
    transcript: `baton: ${error}\n`,
  };
}

async function report(task: DispatchWorker, run: WorkerRun, inputs: Inputs): Promise<void> {
  core.setOutput('status', run.result.status);
  core.setOutput('result-dir', inputs.resultDir);
  if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(renderSummary(task, run.result, run.prompt, run.diffstat), true).write();
}
