// `concurrency.cancel-in-progress`: a new run of a workflow on a thread cancels the older runs
// of the same workflow there that still run (default: for runs `on.pull_request` started, whose
// older runs work on a head the pull request has moved past). Through the engine's cancel
// event, with the run that replaces them: their status comment says why.
//
// A run started by someone without the workflow's role (a stranger's push to their fork's pull
// request) or by nobody in particular (a schedule) cancels only older runs that were started the
// same way, automatically: never a run a person with the role asked for, who is not someone a
// stranger's push may overrule (and whose run would otherwise be spent for nothing).
import { isAllowed, listsBot, type RunState, type TriggerKind } from '../engine/index.ts';
import type { Workflow } from '../manifest/types.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { parseRunId } from '../hosts/github/run-id.ts';
import type { Role } from '../manifest/types.ts';
import type { Log, RunService } from './runs.ts';

/** Whether a new run of `workflow` cancels the older ones on its thread. */
export function cancelsInProgress(workflow: Workflow, trigger: TriggerKind | undefined): boolean {
  return workflow.concurrency?.cancelInProgress ?? trigger === 'pull_request';
}

export interface Superseding {
  workflow: Workflow;
  /** The new run, as its start left it. */
  run: RunState;
  /** The commit the new run starts from (its head). */
  head: string;
  /** The start's delivery key: the cancels are keyed from it, so a redelivery repeats none. */
  key: string;
  actor: string;
  permission: Role | 'none';
}

/**
 * Cancels the older running runs of the workflow on the new run's thread. Called after the new
 * run started, never before: a crash between the two then leaves two runs going (the older
 * one's work is wasted until a redelivery, or the thread's next start, cancels it — every
 * older run is looked at each time, not only the one before), where the other order would
 * leave none, and a pull request silently without the run its push asked for.
 */
export async function supersedeOlder(runs: RunService, gh: RepoContext, s: Superseding, log: Log): Promise<void> {
  // A start that made no run (refused, or over budget) replaces nothing; a redelivered start's
  // run may have ended since (superseded itself): then it supersedes nothing either.
  if (s.run.status !== 'running' || !/^[0-9a-f]{40}$/.test(s.head)) return;
  const mine = parseRunId(s.run.runId);
  if (!mine) return;
  const older = (await runs.runsOfThread(gh, mine.thread, log)).filter((id) => {
    const p = parseRunId(id);
    return p !== undefined && p.workflow === mine.workflow && p.n < mine.n;
  });
  const overrules = isAllowed(s.permission, s.workflow.on.roles) || listsBot(s.workflow.on.bots, s.actor);
  for (const id of older) {
    const at = Date.now();
    let spared = false;
    await runs.onRun(
      gh,
      id,
      (memory) => {
        if (memory.state.status !== 'running') return [];
        // A run a person asked for (no trigger) stays, unless the new run's starter holds the role too.
        spared = !overrules && memory.state.trigger === undefined;
        return spared ? [] : [{ type: 'cancel.requested', key: `${s.key}/supersede/${id}`, at, actor: s.actor, permission: s.permission, supersededBy: { runId: s.run.runId, head: s.head } }];
      },
      log,
    );
    log.info(spared ? `run ${id}: not superseded by ${s.run.runId}: @${s.actor} does not have the role of \`${s.workflow.name}\` and the run was asked for by a person with it` : `run ${id}: superseded by ${s.run.runId} (${s.workflow.name}, concurrency.cancel-in-progress)`);
  }
}
