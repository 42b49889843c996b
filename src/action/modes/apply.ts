// mode: apply — Actions-only mode, in the worker workflow's second job (holding
// `contents: write`, unlike the agent job): after actions/download-artifact of the
// agent's `baton-result`, read it (paths checked), commit its changes with the Git Data
// API (a ref only under baton/) and advance the run with the engine's
// worker.finished / worker.failed — the App's code for both, driven by the shared driver.
import * as core from '@actions/core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stepState } from '../../engine/index.ts';
import { InvalidResultError, readResultDir, type ResultBundle } from '../../agents/result.ts';
import { collectWorkerResult, jobOf } from '../../hosts/github/apply.ts';
import { parseWorkerRunName, type WorkerRunName } from '../../hosts/github/run-id.ts';
import { postOnce } from '../../hosts/github/thread.ts';
import { foreignWorkerRun, type WorkerRunFacts } from '../../hosts/github/worker-provenance.ts';
import { RunService } from '../../app/runs.ts';
import { readEvent, repositoryOf } from '../event.ts';
import { actionLog, makeOctokit, repoContextOf } from '../github.ts';
import type { Inputs } from '../inputs.ts';
import { withLocalArtifact } from '../local-artifact.ts';
import { apiUrl, MISSING_STATE_SECRET } from './run.ts';
import { catchUpComments } from '../catch-up.ts';
import { readTask, TaskDecodeError } from '../../agents/task.ts';
import type { Stamp } from '../../compat.ts';

/** The run's baton: the stamp of the baton.yml run job that dispatched this attempt, from its `task` input (null: none it says). */
function runStampOf(inputs: Record<string, unknown> | undefined): Stamp | null {
  try {
    return readTask(String(inputs?.task ?? '')).from;
  } catch (err) {
    if (err instanceof TaskDecodeError) return null;
    throw err;
  }
}

/** The attempt this worker run was dispatched for, from its `run`, `step` and `attempt` inputs. */
export function attemptOf(inputs: Record<string, unknown> | undefined): WorkerRunName {
  const i = inputs ?? {};
  const ref = parseWorkerRunName(`baton ${String(i.run ?? '')} ${String(i.step ?? '')} #${String(i.attempt ?? '')}`);
  if (!ref) throw new Error(`this worker run's inputs (run ${JSON.stringify(i.run)}, step ${JSON.stringify(i.step)}, attempt ${JSON.stringify(i.attempt)}) name no baton step attempt`);
  return ref;
}

/** `needs.agent.result` → a workflow run conclusion as the App sees it. */
function conclusionOf(result: string): string | null {
  return ({ success: 'success', failure: 'failure', cancelled: 'cancelled', skipped: 'skipped' } as Record<string, string>)[result] ?? null;
}

function readLocal(dir: string): { bundle?: ResultBundle; refused?: string } {
  if (!existsSync(join(dir, 'result.json'))) return {};
  try {
    return { bundle: readResultDir(dir) };
  } catch (err) {
    if (err instanceof InvalidResultError) return { refused: err.message };
    throw err;
  }
}

/** This job's own run as the provenance check sees it, from the variables GitHub sets. */
export function factsOfThisRun(env: NodeJS.ProcessEnv, id: number, event: string): WorkerRunFacts {
  const ref = env.GITHUB_REF ?? '';
  const actor = env.GITHUB_ACTOR ?? '';
  return {
    id,
    event,
    actor,
    triggeringActor: env.GITHUB_TRIGGERING_ACTOR || actor,
    // Only a branch counts: a pull request's refs/pull/<n>/merge or a tag is no head branch of baton's.
    headBranch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref || null,
    headRepository: env.GITHUB_REPOSITORY ?? null,
  };
}

export async function applyMode(inputs: Inputs): Promise<void> {
  const ev = readEvent(process.env);
  if (ev.name !== 'workflow_dispatch') throw new Error(`mode \`apply\` runs in the worker workflow (a workflow_dispatch run), not on ${ev.name}`);
  if (!inputs.token) throw new Error('mode `apply` needs the `token` input with contents, issues, pull-requests, checks and actions write');
  if (!inputs.stateSecret) throw new Error(MISSING_STATE_SECRET);
  const ref = attemptOf(ev.payload.inputs as Record<string, unknown> | undefined);
  const runId = Number(process.env.GITHUB_RUN_ID);
  if (!Number.isFinite(runId)) throw new Error('GITHUB_RUN_ID is not set: mode `apply` runs only inside a GitHub Actions job');

  const local = readLocal(inputs.resultDir);
  const conclusion = local.refused ? 'failure' : conclusionOf(inputs.conclusion);
  core.info(`baton apply: ${ref.runId} ${ref.step}[${ref.slot}] #${ref.attempt}: ${local.bundle ? `result ${local.bundle.result.status}, ${local.bundle.result.changes.length} file(s) changed` : local.refused ? `result refused: ${local.refused}` : `no result in ${inputs.resultDir}`} (agent job: ${inputs.conclusion || 'unknown'})`);

  const setup = { token: inputs.token, apiUrl: apiUrl(), ...repositoryOf(ev, process.env), botLogin: inputs.botLogin, workerWorkflow: inputs.workerWorkflow, ...(inputs.stateSecret ? { stateSecret: inputs.stateSecret } : {}) };
  const octokit = makeOctokit(setup.token, setup.apiUrl);
  // The result travels through the App's collector; a refused one becomes "no artifact" plus the reason.
  const gh = repoContextOf(setup, withLocalArtifact(octokit, runId, local.bundle));
  const runs = new RunService();
  const facts = factsOfThisRun(process.env, runId, ev.name);
  let foreign: string | undefined;
  const state = await runs.onRun(
    gh,
    ref.runId,
    async (memory, workflow) => {
      // The apply job runs inside the worker run: it applies only if that run is the one baton dispatched.
      foreign = foreignWorkerRun(gh, jobOf(memory.state, ref)?.workflowRunId ?? null, facts);
      if (foreign) {
        const thread = memory.state.thread?.number;
        const text = `⚠️ Actions run ${runId} claims to be baton's worker for \`${ref.runId} ${ref.step}\` #${ref.attempt}, but ${foreign}. baton ignored its result.`;
        if (thread !== undefined) await postOnce(gh, thread, `baton:reply foreign-worker-run/${runId}`, text, memory.markers);
        return [];
      }
      const events = await collectWorkerResult(gh, runs.memories.commits, memory.state, ref, { ...facts, conclusion }, Date.now(), workflow, runStampOf(ev.payload.inputs as Record<string, unknown> | undefined));
      if (local.refused) {
        for (const e of events) if (e.type === 'worker.failed') e.error = `the worker's result was refused: ${local.refused}`;
      }
      return events;
    },
    actionLog,
  );
  if (foreign) throw new Error(`this run (${runId}) is not the worker run baton dispatched for ${ref.runId} ${ref.step} #${ref.attempt}: ${foreign}; nothing was applied`);
  if (!state) throw new Error(`run ${ref.runId} has no trusted status comment on #${ref.runId.replace(/^.*-(\d+)-\d+$/, '$1')}: nothing to apply to`);
  // This job waits in the run's concurrency group too: a command it displaced is handled here.
  if (state.thread) await catchUpComments(runs, gh, { thread: state.thread.number }, actionLog);
  const step = stepState(state, ref.step);
  core.info(`baton apply: run ${state.runId} is ${state.status}; step ${ref.step} is ${step?.status ?? 'unknown'}`);
}
