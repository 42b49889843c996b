// `workflow_run.completed` of the worker workflow: the attempt named by its run-name
// has finished; its result is applied and reported to the engine — only when the run is
// the one baton dispatched (worker-provenance.ts). A run that merely claims an attempt
// (its run-name copied into a workflow a pull request edited) is ignored and said once.
import type { RepoContext } from '../../hosts/github/client.ts';
import { collectWorkerResult, jobOf } from '../../hosts/github/apply.ts';
import { parseWorkerRunName } from '../../hosts/github/run-id.ts';
import { postOnce } from '../../hosts/github/thread.ts';
import { foreignWorkerRun, type WorkerRunFacts } from '../../hosts/github/worker-provenance.ts';
import type { Log, RunService } from '../runs.ts';

export interface WorkerRunCompleted extends WorkerRunFacts {
  path: string;
  displayTitle: string;
  conclusion: string | null;
}

export async function onWorkerRunCompleted(runs: RunService, gh: RepoContext, ev: WorkerRunCompleted, log: Log): Promise<void> {
  if (!ev.path.endsWith(`/${gh.workerWorkflow}`) && ev.path !== gh.workerWorkflow) return;
  const ref = parseWorkerRunName(ev.displayTitle);
  if (!ref) return log.warn(`worker run ${ev.id} has the run-name ${JSON.stringify(ev.displayTitle)}, which names no baton attempt`);
  await runs.onRun(
    gh,
    ref.runId,
    async (memory, workflow) => {
      const why = foreignWorkerRun(gh, jobOf(memory.state, ref)?.workflowRunId ?? null, ev);
      if (why) {
        log.warn(`worker run ${ev.id} claims ${ev.displayTitle} but ${why}: ignored`);
        const thread = memory.state.thread?.number;
        const text = `⚠️ Actions run ${ev.id} (\`${ev.path}\`) claims to be baton's worker for \`${ev.displayTitle}\`, but ${why}. baton ignored its result.`;
        if (thread !== undefined) await postOnce(gh, thread, `baton:reply foreign-worker-run/${ev.id}`, text, memory.markers);
        return [];
      }
      return collectWorkerResult(gh, runs.memories.commits, memory.state, ref, { ...ev }, Date.now(), workflow);
    },
    log,
  );
}
