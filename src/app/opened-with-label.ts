// A thread opened with a workflow's label (an issue template's labels, `gh issue create
// --label`, a pull request opened with one), when the workflow also starts on that thread's
// `opened` (`on.issues` / `on.pull_request`): GitHub sends `opened` and `labeled`, in either
// order, two deliveries for one act. Without this, each started its own run (two triages of
// one issue; two reviews of one pull request, the first cancelled by the second). The rule is
// applied where the thread's runs are read, inside the per-thread start queue (runs.ts), so the
// two deliveries cannot both pass it in one process.
import { isTerminal, type RunState } from '../engine/index.ts';
import type { Workflow } from '../manifest/types.ts';

/**
 * When a start gives way to a run of its workflow already on the thread:
 * - `any`: an `opened` event — a thread that was just opened has runs only from the labels it
 *   was opened with (which started the workflow already);
 * - `running`: a label on a thread whose opening starts the workflow — the run the opening
 *   started is still going (a label added once it has ended starts a new run, as always).
 */
export type GiveWay = 'any' | 'running';

/** Whether a label start of `workflow` on this kind of thread gives way to its `opened` start. */
export function labelGivesWay(workflow: Workflow, isPull: boolean): GiveWay | undefined {
  const types: readonly string[] | undefined = isPull ? workflow.on.pullRequest?.types : workflow.on.issues?.types;
  return types?.includes('opened') ? 'running' : undefined;
}

/** The run of `workflow` on the thread that the start gives way to, or undefined (the start goes ahead). */
export function runGivenWayTo(states: readonly RunState[], workflow: string, giveWay: GiveWay | undefined): RunState | undefined {
  if (giveWay === undefined) return undefined;
  const mine = states.filter((s) => s.workflow === workflow);
  return giveWay === 'any' ? mine[0] : mine.find((s) => s.status !== 'idle' && !isTerminal(s.status));
}
