// The sweep: runs whose only pending thing is a deadline (a worker that never reports, a
// budget's minutes, an ask step's or a checks gate's timeout) hear no event, so something
// must come by and look. Open runs are found on GitHub, not in memory — every run has its
// branch `baton/<run-id>` from its first command on, so one `matching-refs` read per
// repository lists them, and a fresh process finds what a dead one left. Each is then put
// through the RunService like an event: first checked against Actions (a worker run that
// finished while nobody listened is collected), then given `time.passed` once one of its
// deadlines has come; a run waiting on CI has the check runs of its head read (CI that finished
// unheard). Shared by the App's timer (sweeper.ts) and Actions-only's schedule.
// It also removes what finished runs leave: the branches of a run whose pull request is closed
// (a backstop for the `pull_request.closed` event) and the claims nobody needs (prune.ts).
import { refsUnder } from '../hosts/github/git-refs.ts';
import { isTerminal, nextDeadline, type CheckResult, type RunEvent, type RunState } from '../engine/index.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { isRunBranch, runIdOfBranch } from '../hosts/github/run-id.ts';
import { branchesNeeded, holdsNothingOfItsOwn, pullClosed, removeRunBranches } from '../hosts/github/run-branches.ts';
import { pruneClaims } from './prune.ts';
import { ciAt } from '../hosts/github/ci-at.ts';
import type { Log, RunService } from './runs.ts';

/** What one sweep of one repository found and did. */
export interface RepoSweep {
  /** Run branches found. */
  runs: number;
  /** Runs put through the run service (not known finished). */
  swept: number;
  /** Runs that failed to sweep (logged; the next sweep tries again). */
  failed: number;
  /** The swept runs by the state the sweep left them in (the metrics' runs by state). */
  states: Record<string, number>;
  /** Branches of finished runs deleted (their pull request closed). */
  branchesRemoved: number;
  /** Claims deleted (prune.ts). */
  claimsPruned: number;
}

/**
 * Runs this process saw finished (or without a record), not read again until `ttlMs` has
 * passed: a `/baton retry` may reopen a failed run, and another replica may have handled it.
 */
export class FinishedRuns {
  private readonly until = new Map<string, number>();
  constructor(private readonly ttlMs = 60 * 60_000) {}
  has(key: string, now: number): boolean {
    const t = this.until.get(key);
    if (t === undefined) return false;
    if (t > now) return true;
    this.until.delete(key);
    return false;
  }
  add(key: string, now: number): void {
    if (this.until.size > 20_000) this.until.clear();
    this.until.set(key, now + this.ttlMs);
  }
}

/** The run ids of a repository's run branches (step branches `baton/<run>/<step>` left out). */
export async function runIdsOnGitHub(gh: RepoContext): Promise<string[]> {
  const ids = new Set<string>();
  for (const r of await refsUnder(gh, 'heads/baton/')) if (isRunBranch(r.ref)) ids.add(runIdOfBranch(r.ref)!);
  return [...ids];
}

/** A checks gate of the run waits for the CI of its head. */
const waitingOnChecks = (s: RunState) => s.steps.some((st) => st.status === 'running' && st.gate?.phase === 'waiting-checks');

/** Results the run has not seen on its head: only those are worth an event (and a record write). */
function newToRun(s: RunState, checks: CheckResult[], complete: boolean): boolean {
  const seen = s.checks[s.head];
  return (complete && !seen?.complete) || checks.some((c) => (seen?.results[c.name]?.conclusion ?? null) !== c.conclusion);
}

export const hasRunningJobs = (s: RunState) => s.status === 'running' && s.steps.some((st) => st.jobs.some((j) => j.status === 'running'));

/**
 * One run, as an event would take it. Two passes through the run's queue: the first looks
 * its running attempts up on Actions (a webhook may have been lost: what this process
 * remembers is not trusted for that) and times out those past their deadline; the second
 * sends `time.passed` when another deadline has come. Nothing due, nothing running: no request.
 */
export async function sweepRun(runs: RunService, gh: RepoContext, runId: string, now: () => number, log: Log): Promise<RunState | undefined> {
  const looked = await runs.onRun(
    gh,
    runId,
    (memory) => {
      if (hasRunningJobs(memory.state)) memory.warm = false;
      return [];
    },
    log,
    { looksOnly: true },
  );
  if (looked?.status !== 'running') return looked;
  return runs.onRun(
    gh,
    runId,
    async (memory, workflow) => {
      const t = now();
      const events: RunEvent[] = [];
      // CI that finished unheard: whether GitHub sends `workflow_run` for a run that a job's
      // GITHUB_TOKEN dispatched is not documented, and a delivery can be lost.
      if (waitingOnChecks(memory.state)) {
        const { checks, complete } = await ciAt(gh, memory.state.head, memory.state.runBranch);
        if (newToRun(memory.state, checks, complete)) events.push({ type: 'checks.reported', key: `sweep-checks:${memory.state.head}:${t}`, at: t, sha: memory.state.head, checks, ...(complete ? { complete } : {}) });
      }
      const due = nextDeadline(memory.state, workflow);
      if (due !== null && due <= t) events.push({ type: 'time.passed', key: `time:${t}`, at: t });
      return events;
    },
    log,
    { looksOnly: true },
  );
}

/** Sweeps every run of one repository; a run that fails is logged and left for the next sweep. */
export async function sweepRepository(runs: RunService, gh: RepoContext, now: () => number, log: Log, finished: FinishedRuns = new FinishedRuns()): Promise<RepoSweep> {
  const ids = await runIdsOnGitHub(gh);
  const out: RepoSweep = { runs: ids.length, swept: 0, failed: 0, states: {}, branchesRemoved: 0, claimsPruned: 0 };
  for (const runId of ids) {
    const key = `${gh.owner}/${gh.repo}#${runId}`.toLowerCase();
    // A run this process reopened since (`/baton retry`) is in its memory, going again.
    const known = runs.memories.get(gh.owner, gh.repo, runId);
    if (finished.has(key, now()) && !(known && !isTerminal(known.state.status))) continue;
    out.swept++;
    try {
      const state = await sweepRun(runs, gh, runId, now, log);
      if (state) out.states[state.status] = (out.states[state.status] ?? 0) + 1;
      // A finished run whose PR was closed while nobody listened (or before it finished): its branches go.
      if (state && !branchesNeeded(gh, state) && (await pullClosed(gh, state.pr!.number))) out.branchesRemoved += await removeRunBranches(gh, state);
      // A finished run without a PR whose branch holds nothing of its own (a review, a triage): it goes too.
      else if (state && (await holdsNothingOfItsOwn(gh, state))) out.branchesRemoved += await removeRunBranches(gh, state);
      if (!state || isTerminal(state.status)) finished.add(key, now());
    } catch (err) {
      out.failed++;
      log.warn(`sweep: run ${runId} in ${gh.owner}/${gh.repo} failed: ${(err as Error).message}`);
    }
  }
  try {
    out.claimsPruned = (await pruneClaims(runs, gh, log)).pruned;
  } catch (err) {
    out.failed++;
    log.warn(`sweep: pruning the claims of ${gh.owner}/${gh.repo} failed: ${(err as Error).message}`);
  }
  return out;
}
