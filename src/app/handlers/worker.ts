// `workflow_run.completed` of the worker workflow: the attempt named by its run-name
// has finished; its result is applied and reported to the engine.
import type { RepoContext } from '../../hosts/github/client.ts';
import { collectWorkerResult } from '../../hosts/github/apply.ts';
import { parseWorkerRunName } from '../../hosts/github/run-id.ts';
import type { Log, RunService } from '../runs.ts';

export interface WorkerRunCompleted {
  path: string;
  displayTitle: string;
  id: number;
  conclusion: string | null;
}

export async function onWorkerRunCompleted(runs: RunService, gh: RepoContext, ev: WorkerRunCompleted, log: Log): Promise<void> {
  if (!ev.path.endsWith(`/${gh.workerWorkflow}`) && ev.path !== gh.workerWorkflow) return;
  const ref = parseWorkerRunName(ev.displayTitle);
  if (!ref) return log.warn(`worker run ${ev.id} has the run-name ${JSON.stringify(ev.displayTitle)}, which names no baton attempt`);
  await runs.onRun(gh, ref.runId, (memory) => collectWorkerResult(gh, runs.memories.commits, memory.state, ref, { id: ev.id, conclusion: ev.conclusion }, Date.now()), log);
}
