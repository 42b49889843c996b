// Names baton gives to things on GitHub. Kept in one place because hosts, the record
// and people reading the Actions tab all rely on them being stable.

export const runBranch = (runId: string): string => `baton/${runId}`;

/**
 * `baton/steps/<run-id>/<step>[-<index>]`: one per step (or fan-out item); attempts reuse it.
 * Not `baton/<run-id>/<step>`: git stores refs as files, so a
 * branch `baton/<run-id>` and a branch under `baton/<run-id>/` cannot both exist.
 */
export const stepBranch = (runId: string, step: string, index: number | null): string =>
  `baton/steps/${runId}/${step}${index === null ? '' : `-${index}`}`;

/** A fix round gets its own branch, named after the gate that asked for it. */
export const fixBranch = (runId: string, gate: string, round: number): string => `baton/steps/${runId}/${gate}-fix-${round}`;

/** The stable key of one dispatched attempt: `run/step/slot/attempt`. */
export const jobKey = (runId: string, step: string, slot: string, attempt: number): string =>
  `${runId}/${step}/${slot}/${attempt}`;

/** The Actions run-name of a worker job; hosts search for it before re-dispatching. */
export const workerRunName = (runId: string, step: string, slot: string, attempt: number): string =>
  `baton ${runId} ${step}${slot === '0' ? '' : `[${slot}]`} #${attempt}`;

export const stepCheckName = (workflow: string, step: string): string => `baton / ${workflow} / ${step}`;
export const aggregateCheckName = (workflow: string): string => `baton / ${workflow}`;
export const stepCheckExternalId = (runId: string, step: string, attempt: number): string =>
  `${runId}/${step}/${attempt}`;
export const aggregateCheckExternalId = (runId: string): string => runId;
