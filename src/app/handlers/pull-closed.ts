// `pull_request.closed` (merged or not) on a run's PR: a finished run's branches are removed
// (hosts/github/run-branches.ts). A run still going keeps them; the sweep removes them once it
// ends. Only the PR baton recorded for the run counts: a PR body naming a run is anyone's to write.
import type { RepoContext } from '../../hosts/github/client.ts';
import { branchesNeeded, removeRunBranches } from '../../hosts/github/run-branches.ts';
import { notRunPull, runIdOfPullBody } from '../../hosts/github/run-id.ts';
import type { Log, RunService } from '../runs.ts';

export interface PullClosed {
  prNumber: number;
  body: string | null;
  headRepo: string | null;
  merged: boolean;
}

export async function onPullClosed(runs: RunService, gh: RepoContext, ev: PullClosed, log: Log): Promise<void> {
  const runId = runIdOfPullBody(ev.body);
  if (!runId || gh.keepBranches) return;
  // Through the run's queue: nothing else acts on the run while its branches go.
  await runs.onRun(
    gh,
    runId,
    async (memory) => {
      const state = memory.state;
      const why = notRunPull(gh, state, ev.prNumber, ev.headRepo) ?? branchesNeeded(gh, state, { state: 'closed' });
      if (why) {
        log.info(`#${ev.prNumber} ${ev.merged ? 'merged' : 'closed'}: the branches of run ${runId} stay (${why})`);
        return [];
      }
      const n = await removeRunBranches(gh, state);
      log.info(`#${ev.prNumber} ${ev.merged ? 'merged' : 'closed'}: deleted ${n} branches of run ${runId}`);
      return [];
    },
    log,
    { looksOnly: true },
  );
}
