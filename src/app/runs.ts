// The run service: every event for a run goes through here — serialised per run, the
// record loaded (from memory, else from the thread), the events driven through the
// engine, what should exist reconciled after a restart, and the record written once.
// Across App processes, each event claims the run's next generation before its first
// effect (hosts/github/lease.ts); an event that loses the claim waits for the winner's
// record, reloads and is applied again, so what process memory holds is never trusted
// over GitHub.
import { drive } from '../hosts/driver.ts';
import { recordRunSpend } from './daily-budget.ts';
import { emptyState, isTerminal, type RunEvent, type RunRequested, type RunState } from '../engine/index.ts';
import { runGivenWayTo, type GiveWay } from './opened-with-label.ts';
import type { Workflow } from '../manifest/types.ts';
import { collectWorkerResult, workerRunGone } from '../hosts/github/apply.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { findWorkerRun } from '../hosts/github/dispatch.ts';
import { GitHubHost } from '../hosts/github/host.ts';
import { byName, loadManifests } from '../hosts/github/manifests.ts';
import { loadOutputs } from '../hosts/github/outputs.ts';
import { MAX_RUN_MEMORIES, RunMemories, type Retained, type RunMemory } from '../hosts/github/memory.ts';
import { makeRunId, parseRunId } from '../hosts/github/run-id.ts';
import { postOnce, readThread, type ThreadRead } from '../hosts/github/thread.ts';
import { refusedStanding, replyFor, written } from '../hosts/github/stranger-door.ts';
import { orGone, WorkerRunGone } from '../hosts/github/worker-run.ts';
import { factsOfRun, type WorkerRunFacts } from '../hosts/github/worker-provenance.ts';
import { KeyedQueue } from './queue.ts';
import { inRunLane, whenDeferred } from './write-lanes.ts';
import { deferralNotice } from './deferral-notice.ts';
import { claimMaker, ClaimAnchors, DEFAULT_CLAIM_GRACE_MS, leaseRef, DEFAULT_LEASE_TTL_MS, EventClaim, LeaseTaken, StaleView } from '../hosts/github/lease.ts';

export interface Log {
  info(msg: string): void;
  warn(msg: string): void;
}

export type EventSource = (memory: RunMemory, workflow: Workflow) => Promise<RunEvent[]> | RunEvent[];

export interface OnRunOptions {
  /**
   * The source is no delivery but a look at the run (the sweep): when it finds nothing to do,
   * nothing is lost, so the view is not checked against the claims (a read per run and sweep).
   */
  looksOnly?: boolean;
}

export interface LeaseOptions {
  /** Claims on GitHub (default); false only where one process is known to be the only writer. */
  claims: boolean;
  /** How long a claim may go without its record before another process takes the run over. */
  ttlMs: number;
  /** The claims' grace period (lease.ts): a view older than this is reloaded before it claims; ≥ ttlMs. */
  graceMs: number;
  /** How soon a process waiting on another's claim first reads the record again (then less often, up to 16×). */
  pollMs: number;
  /** A clock that only measures durations (never compared between machines). */
  clock: () => number;
  /** Sleeps between polls (tests compress time through pollMs, not by replacing this). */
  sleep: (ms: number) => Promise<void>;
}

/** What the lease cost one event: claim requests and waits on other processes' claims. */
export interface LeaseReport {
  claimMs: number;
  waitMs: number;
  /** Claims lost to another process (each followed by a wait and a reload). */
  lost: number;
  /** Claims taken over after their time-to-live (a process died mid-event). */
  takenOver: number;
}

const DEFAULT_LEASE: LeaseOptions = {
  claims: true,
  ttlMs: DEFAULT_LEASE_TTL_MS,
  graceMs: DEFAULT_CLAIM_GRACE_MS,
  pollMs: 1000,
  clock: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Bound on reloads for one event: each loss means another process made progress on the run. */
const MAX_CLAIM_ROUNDS = 20;
/** Claims no baton process made, gone past in one event (each costs a poll, no progress: counted apart). */
const MAX_FOREIGN_CLAIMS = 200;

export class RunService {
  readonly memories = new RunMemories();
  /** The commits this process's claims point at (lease.ts). */
  readonly anchors = new ClaimAnchors(this.memories.commits.maker);
  private readonly queue = new KeyedQueue();
  /**
   * Run ids per thread (newest last), as far as this process knows: kept only when it is the
   * only writer (no claims), since otherwise every look reads the thread (runsOfThread).
   */
  private readonly threads = new Map<string, string[]>();
  /** Work accepted and not finished (deliveries acknowledged before their work: app.ts). */
  private readonly background = new Set<Promise<unknown>>();
  private readonly lease: LeaseOptions;
  /** Told what the lease cost each event (metrics, bench). */
  onLease?: (report: LeaseReport) => void;

  constructor(
    /** The clock of this process's events (a start's `at`, time passing); tests compress it. */
    readonly now: () => number = Date.now,
    lease: Partial<LeaseOptions> = {},
  ) {
    this.lease = { ...DEFAULT_LEASE, ...lease };
    // A longer time-to-live given alone lengthens the grace period with it.
    if (lease.graceMs === undefined) this.lease.graceMs = Math.max(DEFAULT_CLAIM_GRACE_MS, this.lease.ttlMs);
    if (this.lease.graceMs < this.lease.ttlMs) throw new Error(`the claims' grace period (${this.lease.graceMs} ms) must be at least their time-to-live (${this.lease.ttlMs} ms)`);
  }

  /** The claim settings: the sweep's pruner (prune.ts) measures the grace period on the same clock. */
  get leaseOptions(): Readonly<LeaseOptions> {
    return this.lease;
  }

  /** Runs `work` after the caller returns, tracked so that `idle()` (tests, shutdown) waits for it. */
  inBackground(work: () => Promise<void>): Promise<void> {
    const done = Promise.resolve().then(work);
    const tracked = done.catch(() => undefined);
    this.background.add(tracked);
    void tracked.then(() => this.background.delete(tracked));
    return done;
  }

  async idle(): Promise<void> {
    while (this.background.size) await Promise.all([...this.background]);
    await this.queue.idle();
    if (this.background.size) return this.idle();
  }

  /** Deliveries accepted whose work has not ended. */
  get busy(): number {
    return this.background.size;
  }

  private threadKey(gh: RepoContext, number: number): string {
    return `${gh.owner}/${gh.repo}#${number}`.toLowerCase();
  }

  /** Nothing is kept when other processes may start runs (it would never be read); bounded like the runs kept. */
  private rememberThread(key: string, ids: string[]): void {
    if (this.lease.claims) return;
    this.threads.delete(key);
    if (this.threads.size >= MAX_RUN_MEMORIES) this.threads.delete(this.threads.keys().next().value!);
    this.threads.set(key, ids);
  }

  /** What this process keeps in memory for runs (RunMemories.retained): a finished run holds nothing. */
  retained(): Retained {
    return this.memories.retained();
  }

  /**
   * The runs of a thread, newest last. Read from the thread each time when other processes may
   * start runs (claims on): a list kept in memory would miss theirs, and send a command to an older
   * run or answer that there is none. One process alone reads the thread once.
   */
  async runsOfThread(gh: RepoContext, number: number, log: Log): Promise<string[]> {
    const key = this.threadKey(gh, number);
    let ids = this.lease.claims ? undefined : this.threads.get(key);
    if (!ids) {
      const read = await readThread(gh, number);
      await reportIgnored(gh, number, read, log);
      ids = read.records.map((r) => r.state.runId);
      this.rememberThread(key, ids);
    }
    return ids;
  }

  /**
   * Loads a run (memory first), then feeds it the events `source` produces. When another
   * process claimed the run first, waits for its record, reloads and feeds the events again
   * (the source runs again on the fresh state: what it derived from the stale one is dropped).
   */
  onRun(gh: RepoContext, runId: string, source: EventSource, log: Log, opts: OnRunOptions = {}): Promise<RunState | undefined> {
    // Its writes wait at the write budget's door in the run's lane (write-lanes.ts).
    return inRunLane(gh.owner, gh.repo, runId, () => this.onRunInLane(gh, runId, source, log, opts));
  }

  private onRunInLane(gh: RepoContext, runId: string, source: EventSource, log: Log, opts: OnRunOptions): Promise<RunState | undefined> {
    return this.queue.run(this.memories.key(gh.owner, gh.repo, runId), async () => {
      let skipTo = 0;
      let known: ThreadRead | undefined;
      let foreign = 0;
      for (let rounds = 0; ; rounds++) {
        const round = rounds - foreign;
        const memory = await this.load(gh, runId, log, known);
        if (!memory) return undefined;
        // A claim whose process died: its generation is skipped, and its effects looked up (warm: false).
        if (skipTo > memory.gen) Object.assign(memory, { gen: skipTo, warm: false, checksKnown: false });
        try {
          return await this.process(gh, memory, source, undefined, opts.looksOnly);
        } catch (err) {
          // A view too old to claim from: read again, nobody to wait for.
          if (err instanceof StaleView && round < MAX_CLAIM_ROUNDS) continue;
          if (!(err instanceof LeaseTaken) || round >= MAX_CLAIM_ROUNDS || foreign >= MAX_FOREIGN_CLAIMS) throw err;
          // After one claim nobody of baton's made, the next ones are looked at before any wait.
          const waited = await this.waitForRecord(gh, runId, err.gen, memory.commentId, log, foreign > 0);
          if (waited.outcome === 'taken-over') skipTo = err.gen;
          if (waited.foreign) foreign++;
          known = waited.read; // the thread as the wait last read it: the reload starts from it
        }
      }
    });
  }

  /**
   * Waits until the record of generation `gen` (claimed by another process) is written, reading
   * it every pollMs; 'taken-over' when it did not come within the claim's time-to-live, counted
   * from now on this process's clock (the claimer started earlier, so it has stopped by then).
   */
  private async waitForRecord(gh: RepoContext, runId: string, gen: number, commentId: number | null, log: Log, eager = false): Promise<{ outcome: 'written' | 'taken-over'; read?: ThreadRead; foreign?: true }> {
    const { clock, ttlMs, pollMs, sleep } = this.lease;
    const start = clock();
    const report: LeaseReport = { claimMs: 0, waitMs: 0, lost: 1, takenOver: 0 };
    try {
      // Most waits are on a live process finishing its event (seconds); a dead one's takes the
      // whole time-to-live: reads back off so that waiting costs a few requests, not hundreds.
      for (let poll = 0; ; poll++) {
        const { gen: written, read } = await this.recordGen(gh, runId, commentId);
        if (written >= gen) return { outcome: 'written', read };
        // Not written after a first wait: is it a baton process's claim at all? One nobody of
        // baton's made (or one that is gone) would be waited on for a whole time-to-live for nothing.
        if (poll === (eager ? 0 : 1) && (await this.foreignClaim(gh, runId, gen, read, log))) {
          report.takenOver = 1;
          return { outcome: 'taken-over', read, foreign: true };
        }
        if (clock() - start >= ttlMs) {
          log.warn(`run ${runId}: generation ${gen} was claimed but its record never came within ${Math.round(ttlMs / 1000)} s (its App process died mid-event?); this process takes the run over`);
          report.takenOver = 1;
          return { outcome: 'taken-over', read };
        }
        await sleep(Math.min(pollMs * 2 ** poll, pollMs * 16, Math.max(0, ttlMs - (clock() - start))));
      }
    } finally {
      report.waitMs = clock() - start;
      this.onLease?.(report);
    }
  }

  /**
   * True when the claim of generation `gen` is no baton process's (or is gone): the run goes on
   * past it, and the thread is told once per run what was found first (the commit it points at;
   * nothing of its message, which anyone who can push may have written): a writer who makes 25
   * such refs gets one notice, not 25.
   */
  private async foreignClaim(gh: RepoContext, runId: string, gen: number, read: ThreadRead | undefined, log: Log): Promise<boolean> {
    const maker = await claimMaker(gh, runId, gen);
    if (maker?.baton) return false;
    const ref = leaseRef(runId, gen);
    const what = maker ? `points at ${maker.sha.slice(0, 7)}, a commit no baton process made for its claims` : 'is gone';
    log.warn(`run ${runId}: the claim ${ref} ${what}; the run goes on past it`);
    const thread = parseRunId(runId)?.thread;
    if (maker && thread !== undefined) {
      const text = `⚠️ baton found \`${ref}\`, which baton did not make: it ${what}. It is not the claim of any baton process, so run \`${runId}\` goes on past it. Anyone who can create refs in this repository can make one; if you do not know where it comes from, delete it (\`git push origin :${ref}\`).`;
      await postOnce(gh, thread, `baton:reply foreign-claim/${runId}`, text, read?.markers ?? new Set());
    }
    return true;
  }

  /** The generation of a run's record on GitHub (0 when it has none yet), with the thread read for it. */
  private async recordGen(gh: RepoContext, runId: string, commentId: number | null): Promise<{ gen: number; read?: ThreadRead }> {
    this.memories.forget(gh.owner, gh.repo, runId);
    const parsed = parseRunId(runId);
    if (!parsed) return { gen: 0 };
    const read = await readThread(gh, parsed.thread);
    const found = read.records.find((r) => r.state.runId === runId && (commentId === null || r.commentId === commentId));
    return { gen: found?.gen ?? 0, read };
  }

  /**
   * Starts a run for a label or a command. Serialised per thread so that the run number
   * is counted once; a redelivered start (its key is in a record already) only
   * reconciles the run it started.
   */
  start(gh: RepoContext, workflow: Workflow, request: Omit<RunRequested, 'runId'>, log: Log, giveWay?: GiveWay, skipTo = 0, round = 0): Promise<RunState | undefined> {
    const number = request.thread!.number;
    return this.queue.run(`start:${this.threadKey(gh, number)}`, async () => {
      const readAt = this.lease.clock();
      const read = await readThread(gh, number);
      const again = read.records.find((r) => r.state.appliedKeys.includes(request.key));
      if (again) return this.onRun(gh, again.state.runId, () => [], log);
      const first = runGivenWayTo(read.records.map((r) => r.state), request.workflow, giveWay);
      if (first) {
        log.info(`\`${request.workflow}\` not started again on #${number}: run ${first.runId} is its start for the thread's opening (opened with its label)`);
        return undefined;
      }
      const n = read.records.filter((r) => r.state.workflow === request.workflow).length + 1;
      const runId = makeRunId(request.workflow, number, n);
      const key = this.threadKey(gh, number);
      this.rememberThread(key, read.records.map((r) => r.state.runId));
      const started = await this.queue.run(this.memories.key(gh.owner, gh.repo, runId), async () => {
        // After a start whose process died, its claim is skipped and what it did is looked up (warm: false).
        const memory: RunMemory = { state: emptyState(), commentId: null, body: '', warm: skipTo === 0, checksKnown: skipTo === 0, checkRuns: new Map(), markers: read.markers, gen: skipTo, confirmedAt: readAt };
        try {
          const state = await this.process(gh, memory, () => [{ ...request, runId }], workflow);
          // A refused start makes no run: the thread's commands and answers stay with its last real one.
          if (state.status !== 'idle') this.rememberThread(key, [...(this.threads.get(key) ?? []), runId]);
          return { state };
        } catch (err) {
          if (!(err instanceof LeaseTaken) || round >= MAX_CLAIM_ROUNDS) throw err;
          return { taken: err };
        }
      });
      if ('state' in started) return started.state;
      // Another process is starting this very run (the same delivery twice, or two at once): once
      // its record is written, this start is a redelivery of its key, or it becomes the next run.
      const { outcome } = await this.waitForRecord(gh, runId, started.taken.gen, null, log);
      return { again: true, skip: outcome === 'taken-over' ? started.taken.gen : 0 };
    }).then((r) => (r && 'again' in r ? this.start(gh, workflow, request, log, giveWay, r.skip, round + 1) : r));
  }

  /** `known`: the thread as just read (after a wait on another process), so it is not read again. */
  private async load(gh: RepoContext, runId: string, log: Log, known?: ThreadRead): Promise<RunMemory | undefined> {
    const hit = this.memories.get(gh.owner, gh.repo, runId);
    if (hit) return hit;
    const parsed = parseRunId(runId);
    if (!parsed) return undefined;
    // The view is as fresh as the read (a read handed over by a wait was made just before).
    const readAt = this.lease.clock();
    const read = known ?? (await readThread(gh, parsed.thread));
    await reportIgnored(gh, parsed.thread, read, log);
    const found = read.records.find((r) => r.state.runId === runId);
    if (!found) {
      log.warn(`no trusted record of run ${runId} on #${parsed.thread}; the event is ignored`);
      return undefined;
    }
    // Outputs kept in check runs come back whole: the engine always sees full outputs. The run's
    // manifests (read next, by process) do not depend on them: both reads go out together.
    const [state] = await Promise.all([loadOutputs(gh, this.memories.outputs, found.state), loadManifests(gh, found.state.manifestCommit).catch(() => undefined)]);
    return { state, commentId: found.commentId, body: found.body, warm: false, checksKnown: false, checkRuns: new Map(), markers: read.markers, gen: found.gen, confirmedAt: readAt };
  }

  private async workflowOf(gh: RepoContext, state: RunState): Promise<Workflow> {
    const set = await loadManifests(gh, state.manifestCommit);
    const found = byName(set, state.workflow);
    if (!found) throw new Error(`run ${state.runId}: workflow \`${state.workflow}\` is not in ${state.manifestCommit.slice(0, 7)}'s .agents/workflows any more`);
    if (state.manifestHash && found.hash !== state.manifestHash) {
      throw new Error(`run ${state.runId}: the manifest of \`${state.workflow}\` at ${state.manifestCommit.slice(0, 7)} reads differently than when the run started (was baton upgraded mid-run?)`);
    }
    return found.workflow;
  }

  private async process(gh: RepoContext, memory: RunMemory, source: EventSource, known?: Workflow, looksOnly = false): Promise<RunState> {
    const runId = memory.state.runId;
    // A write of this event held long by the write budget: the run's status comment says so (once).
    whenDeferred((estimateMs) => deferralNotice(gh, memory, estimateMs));
    try {
      const workflow = known ?? (await this.workflowOf(gh, memory.state));
      const claimMs = { total: 0 };
      const { clock, ttlMs, sleep, pollMs, graceMs } = this.lease;
      const claim = this.lease.claims ? new EventClaim(gh, memory, clock, ttlMs, (ms) => (claimMs.total += ms), graceMs, this.anchors, (attempt) => sleep(pollMs * attempt)) : null;
      const host = new GitHubHost(gh, memory, this.memories.commits, this.now, this.memories.outputs, claim);
      const events = await source(memory, workflow);
      const ended = isTerminal(memory.state.status);
      const applied = events.length ? (await drive(host, workflow, memory.state, events)).applied.length : 0;
      // Nothing to do on this view (no event, or none that changes the run: CI on a commit no gate
      // waits on): with several processes the view may be stale (kept in memory, or read before
      // another's record), so the event is dropped only when nobody claimed past it.
      if (!applied && claim && !looksOnly && memory.state.runId) await claim.ensureCurrent(memory.state.runId);
      // A worker that never reports (its webhook lost, its job stuck) must not hang the run:
      // on any later event, attempts past their deadline are looked up on Actions, and what
      // still runs is then timed out by the time that passed.
      const now = this.now();
      if (!memory.warm || overdue(memory.state, now)) await this.reconcile(gh, host, memory, workflow);
      if (overdue(memory.state, now)) await drive(host, workflow, memory.state, [{ type: 'time.passed', key: `time:${now}`, at: now }]);
      // A run that ended with this event: its cost goes into its day's ledger (budget.per-day) before
      // the record says it ended, so a crash in between writes it again on the next event.
      if (!ended && isTerminal(memory.state.status)) await recordRunSpend(gh, workflow, memory.state);
      await host.flush(workflow);
      if (claim?.claimed) this.onLease?.({ claimMs: claimMs.total, waitMs: 0, lost: 0, takenOver: 0 });
      memory.warm = true;
      // Kept for the run's next event while it goes on; a finished run is released (memory.ts).
      if (memory.state.status !== 'idle') this.memories.set(gh.owner, gh.repo, memory);
      return memory.state;
    } catch (err) {
      // What is in memory may be ahead of GitHub now: start over from the record next time.
      if (runId) this.memories.forget(gh.owner, gh.repo, runId);
      throw err;
    }
  }

  /**
   * After a restart: worker runs that finished while nobody listened are collected now
   * (their webhook may never come again), and running jobs without an Actions run are
   * looked up by run-name.
   */
  private async reconcile(gh: RepoContext, host: GitHubHost, memory: RunMemory, workflow: Workflow): Promise<void> {
    if (isTerminal(memory.state.status) || memory.state.status === 'idle') return;
    for (const step of memory.state.steps) {
      for (const job of step.jobs) {
        if (job.status !== 'running') continue;
        const ref = { runId: memory.state.runId, step: step.id, slot: job.slot, attempt: job.attempt };
        let run: (WorkerRunFacts & { status: string | null; conclusion: string | null }) | undefined;
        if (job.workflowRunId !== null) {
          const id = job.workflowRunId;
          try {
            const res = await orGone(id, () => gh.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { owner: gh.owner, repo: gh.repo, run_id: id }));
            run = { ...factsOfRun(res.data), status: res.data.status, conclusion: res.data.conclusion };
          } catch (err) {
            if (!(err instanceof WorkerRunGone)) throw err;
            // Deleted or expired: the attempt failed (the retry policy decides what follows).
            const events = workerRunGone(memory.state, ref, id, this.now());
            if (events.length) await drive(host, workflow, memory.state, events);
            continue;
          }
        } else {
          run = await findWorkerRun(gh, `baton ${ref.runId} ${ref.step}${ref.slot === '0' ? '' : `[${ref.slot}]`} #${ref.attempt}`);
          if (run) await drive(host, workflow, memory.state, [{ type: 'worker.dispatched', key: `worker-run:${run.id}/found`, at: this.now(), step: step.id, slot: job.slot, attempt: job.attempt, workflowRunId: run.id }]);
        }
        if (run?.status !== 'completed') continue;
        const events = await collectWorkerResult(gh, this.memories.commits, memory.state, ref, run, this.now(), workflow);
        if (events.length) await drive(host, workflow, memory.state, events);
      }
    }
  }
}

/** A running attempt whose deadline has passed. */
function overdue(state: RunState, now: number): boolean {
  if (state.status !== 'running') return false;
  return state.steps.some((s) => s.jobs.some((j) => j.status === 'running' && j.deadline !== null && j.deadline <= now));
}

/**
 * Comments that look like a record but are not trusted: ignored, and said so once per thread
 * (not once per comment: anyone can post look-alikes), through the stranger door.
 */
async function reportIgnored(gh: RepoContext, number: number, read: ThreadRead, log: Log): Promise<void> {
  const bad = read.ignored[0];
  if (!bad) return;
  log.warn(`ignored ${read.ignored.length} baton record(s) on #${number}, the first in comment ${bad.commentId}: ${bad.problem}`);
  if (written(read.markers, IGNORED_RECORD_KEY)) return;
  const text = `⚠️ Comment ${bad.commentId} looks like a baton status comment, but ${bad.problem}: baton ignored it, and ignores any other comment like it in this thread without saying so again. A run's state is read only from baton's own status comment, unedited.`;
  await replyFor(gh, number, IGNORED_RECORD_KEY, refusedStanding(bad.author), text);
}

const IGNORED_RECORD_KEY = 'ignored-record';
