// Worker jobs: `workflow_dispatch` of the worker workflow on the default branch with
// `return_run_details`, so the Actions run id is known at once. Before dispatching again
// after a restart, the run is looked up by its run-name (`display_title` in the API):
// a step attempt is never dispatched twice.
import type { CancelWorker, DispatchWorker, RunEvent } from '../../engine/index.ts';
import { encodeTask, MAX_TASK_INPUT, TaskTooLargeError } from '../../agents/task.ts';
import { messageOf, refusedForGood, statusOf, type RepoContext } from './client.ts';
import { stepLabel } from './run-id.ts';
import { factsOfRun, foreignWorkerRun, type WorkerRunFacts } from './worker-provenance.ts';

export interface FoundWorkerRun extends WorkerRunFacts {
  url: string;
  status: string | null;
  conclusion: string | null;
}

/**
 * The worker run with this run-name that baton dispatched (newest first): its id when one was
 * recorded, else any run triggered by baton's identity via workflow_dispatch on the default
 * branch — a run-name alone is anyone's to copy.
 */
export async function findWorkerRun(gh: RepoContext, runName: string, recorded: number | null = null): Promise<FoundWorkerRun | undefined> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
    owner: gh.owner,
    repo: gh.repo,
    workflow_id: gh.workerWorkflow,
    event: 'workflow_dispatch',
    per_page: 100,
  });
  const run = res.data.workflow_runs.find((r) => r.display_title === runName && !foreignWorkerRun(gh, recorded, factsOfRun(r)));
  return run && { ...factsOfRun(run), url: run.html_url, status: run.status, conclusion: run.conclusion };
}

export async function dispatchWorker(gh: RepoContext, cmd: DispatchWorker, at: number, lookFirst: boolean): Promise<RunEvent[]> {
  const ref = { step: cmd.step, slot: cmd.slot, attempt: cmd.attempt };
  if (lookFirst) {
    const found = await findWorkerRun(gh, cmd.runName);
    if (found) return [{ type: 'worker.dispatched', key: `${cmd.key}/dispatched`, at, ...ref, workflowRunId: found.id, url: found.url }];
  }
  const refused = (error: string): RunEvent[] => [{ type: 'worker.failed', key: `${cmd.key}/dispatch-failed`, at, ...ref, reason: 'dispatch-failed', error }];
  let inputs: Record<string, string>;
  try {
    inputs = {
      run: cmd.runId,
      step: stepLabel(cmd.step, cmd.slot),
      attempt: String(cmd.attempt),
      index: cmd.index === null ? '' : String(cmd.index),
      base: cmd.base,
      task: encodeTask(cmd),
    };
  } catch (err) {
    if (err instanceof TaskTooLargeError) return refused(err.message);
    throw err;
  }
  // GitHub's limit is for all inputs together, so the task's own limit is not enough.
  const size = JSON.stringify(inputs).length;
  if (size > MAX_TASK_INPUT) {
    return refused(`the inputs of the worker dispatch are ${size} characters together; GitHub takes at most ${MAX_TASK_INPUT} for all inputs of a workflow_dispatch (shorten what the prompt quotes)`);
  }
  try {
    const res = await gh.octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner: gh.owner,
      repo: gh.repo,
      workflow_id: gh.workerWorkflow,
      ref: gh.defaultBranch,
      inputs,
      return_run_details: true,
    } as never);
    const data = (res as { data?: { workflow_run_id?: number; html_url?: string } }).data ?? {};
    return [
      {
        type: 'worker.dispatched',
        key: `${cmd.key}/dispatched`,
        at,
        ...ref,
        ...(data.workflow_run_id ? { workflowRunId: data.workflow_run_id } : {}),
        ...(data.html_url ? { url: data.html_url } : {}),
      },
    ];
  } catch (err) {
    // 4xx: the worker workflow is missing or refuses the inputs; retrying will not help.
    if (refusedForGood(err)) {
      return refused(`dispatching .github/workflows/${gh.workerWorkflow} on ${gh.defaultBranch} failed (${statusOf(err)}): ${messageOf(err)}`);
    }
    throw err;
  }
}

export async function cancelWorker(gh: RepoContext, cmd: CancelWorker): Promise<void> {
  const id = cmd.workflowRunId ?? (await findWorkerRun(gh, cmd.runName))?.id;
  if (id === undefined) return;
  try {
    await gh.octokit.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { owner: gh.owner, repo: gh.repo, run_id: id });
  } catch (err) {
    const status = statusOf(err);
    if (status !== 409 && status !== 404) throw err; // 409: it already finished; 404: it was deleted or expired
  }
}
