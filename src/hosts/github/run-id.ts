// Run ids are `<workflow>-<issue-or-pr-number>-<n>`, so that the thread holding a run's
// record follows from anything that names the run: a worker's run-name, the run branch
// `baton/<run-id>` of a check, status or pull request event.
import type { RunState } from '../../engine/index.ts';

export interface ParsedRunId {
  runId: string;
  workflow: string;
  thread: number;
  n: number;
}

export function makeRunId(workflow: string, thread: number, n: number): string {
  return `${workflow}-${thread}-${n}`;
}

export function parseRunId(runId: string): ParsedRunId | undefined {
  const m = /^([a-z0-9][a-z0-9-]*)-(\d+)-(\d+)$/.exec(runId);
  if (!m) return undefined;
  return { runId, workflow: m[1]!, thread: Number(m[2]), n: Number(m[3]) };
}

/** The run of a branch: `baton/<run-id>` or one of its step branches `baton/<run-id>/<step>`. */
export function runIdOfBranch(branch: string | null | undefined): string | undefined {
  const m = /^(?:refs\/heads\/)?baton\/([^/]+)(?:\/.*)?$/.exec(branch ?? '');
  return m && parseRunId(m[1]!) ? m[1] : undefined;
}

/** Only the run branch itself (not a step branch). */
export function isRunBranch(branch: string | null | undefined): boolean {
  return /^(?:refs\/heads\/)?baton\/[^/]+$/.test(branch ?? '') && runIdOfBranch(branch) !== undefined;
}

export interface WorkerRunName {
  runId: string;
  step: string;
  slot: string;
  attempt: number;
}

/** Reverse of the engine's workerRunName: `baton <run> <step>[<slot>] #<attempt>`. */
export function parseWorkerRunName(title: string | null | undefined): WorkerRunName | undefined {
  const m = /^baton (\S+) ([A-Za-z][A-Za-z0-9_-]*)(?:\[([^\]]+)\])? #(\d+)$/.exec(title ?? '');
  if (!m || !parseRunId(m[1]!)) return undefined;
  return { runId: m[1]!, step: m[2]!, slot: m[3] ?? '0', attempt: Number(m[4]) };
}

/** The `step` input of the worker workflow: the step id, plus `[slot]` unless it is the plain slot `0`. */
export function stepLabel(step: string, slot: string): string {
  return slot === '0' ? step : `${step}[${slot}]`;
}

/** The run id in the footer of a PR baton opened ("Opened by baton run `<id>`"). */
export function runIdOfPullBody(body: string | null | undefined): string | undefined {
  const m = /Opened by baton run `([^`]+)`/.exec(body ?? '');
  return m && parseRunId(m[1]!) ? m[1] : undefined;
}

/**
 * Why pull request #`number` is not the run's own PR, or undefined when it is. A PR's head
 * ref and body are its author's to choose, so only the number baton recorded when it opened
 * the PR (and a head in the repository itself, not a fork) ties a PR to a run.
 */
export function notRunPull(gh: { owner: string; repo: string }, state: RunState, number: number, headRepo?: string | null): string | undefined {
  if (!state.pr) return `run ${state.runId} has opened no pull request`;
  if (state.pr.number !== number) return `#${number} is not the pull request of run ${state.runId} (that is #${state.pr.number})`;
  if (headRepo !== undefined && headRepo?.toLowerCase() !== `${gh.owner}/${gh.repo}`.toLowerCase()) return `the head of #${number} is in ${headRepo ?? 'a deleted fork'}, not in ${gh.owner}/${gh.repo}`;
  return undefined;
}
