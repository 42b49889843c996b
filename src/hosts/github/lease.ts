// One writer per run across any number of App processes, kept on GitHub itself.
//
// Every record (status comment) carries a generation: which claim wrote it. Before the
// first effect of an event — a ref, a dispatch, a check run, a comment — the process claims
// the next generation by creating `refs/baton/leases/<run id>/<generation>`. Creating a ref
// is create-if-absent on GitHub (422 "Reference already exists"), so exactly one process
// wins each generation: the winner's view of the run was current (nobody else claimed
// since the record it holds was written) and nobody else acts on the run until the record
// with that generation is written. A loser learns it held a stale view; it waits for the
// record of the claimed generation, reloads, and applies its event again (runs.ts).
//
// Why not a lock that is taken and released: releasing is a second paced write per event, a
// `DELETE` release is unsafe once the lease has expired and been taken by another, and a
// fast-forward-only ref made into a compare-and-swap needs a new commit per move (two writes).
// One create per event that changes a run is the least GitHub allows (docs/operations.md).
//
// A claim whose record never comes (its process died mid-event) is taken over after the
// claim time-to-live, measured on the waiter's own clock from when it first saw the claim: the
// taker claims the generation after the dead one. A holder whose event runs long (a fan-out
// dispatching a hundred workers, a rate limit waited out) renews before its time-to-live, less a
// margin, by claiming the next generation itself; it can only lose that claim to a taker, and
// then stops (`LeaseExpired`). Since the holder's clock started before any waiter's, two
// processes never act at once as long as clocks run at the same rate (no two clocks are compared).
//
// Claims are deleted again (prune.ts, from the sweep), which would let a process holding an old
// view win a generation it should lose. Two rules keep that from happening, each measured on one
// process's own clock: (1) a process never claims from a view confirmed longer ago than the grace
// period G (`StaleView`: loaded from GitHub, or its own claim won; runs.ts reloads), and a holder
// never renews a claim older than G; (2) the sweep deletes the claims of generations ≤ n only once
// it has itself seen a record of generation ≥ n for longer than G. Any view below n was confirmed
// before record n was written, so before the pruner saw it: more than G ago, and it is reloaded
// instead of claiming. A takeover stays correct as long as TTL ≤ G: the claim a taker skips is
// above every record, so never deleted, and a holder's renewal is refused past G, before a taker's
// record could have been seen for G. Claims above the newest record (a claim whose process died)
// are never deleted: the run's next event takes them over and moves its record past them.
import type { RunState } from '../../engine/index.ts';
import { messageOf, statusOf, type RepoContext } from './client.ts';

/** Refs under this prefix are baton's claims; no branch or tag, so no workflow runs on them. */
export const LEASE_PREFIX = 'refs/baton/leases/';

/** How long a claim may go without its record before another process takes the run over. */
export const DEFAULT_LEASE_TTL_MS = 5 * 60_000;

/** How long a view of a run is trusted for a claim, and a record seen before older claims go (≥ the TTL). */
export const DEFAULT_CLAIM_GRACE_MS = 15 * 60_000;

/** A holder stops this long before its claim's time-to-live, leaving room for the last write. */
export function leaseMargin(ttlMs: number): number {
  return Math.min(60_000, Math.round(ttlMs / 5));
}

export function leaseRef(runId: string, gen: number): string {
  return `${LEASE_PREFIX}${runId}/${gen}`;
}

/** Another process claimed this generation first: what this process knows of the run is stale. */
export class LeaseTaken extends Error {
  constructor(
    readonly runId: string,
    readonly gen: number,
  ) {
    super(`run ${runId}: generation ${gen} was claimed by another App process first; its view is reloaded and the event applied again`);
  }
}

/**
 * What this process knows of a run was confirmed longer ago than the grace period: the claims it
 * would be checked against may have been deleted since (prune.ts), so it is reloaded first.
 */
export class StaleView extends Error {
  constructor(
    readonly runId: string,
    ageMs: number,
  ) {
    super(`run ${runId}: this process's view of the run was confirmed ${Math.round(ageMs / 1000)} s ago, longer than the claims' grace period; it is reloaded before the event is applied`);
  }
}

/** This process's claim ran past its time-to-live: another may own the run now. */
export class LeaseExpired extends Error {
  constructor(
    readonly runId: string,
    readonly gen: number,
    ageMs: number,
  ) {
    super(`run ${runId}: the claim of generation ${gen} was ${Math.round(ageMs / 1000)} s old and another App process took the run over before it was renewed; the event stops here and that process goes on from the record`);
  }
}

/**
 * Claims generation `gen` of a run: true when this process created the claim, false when
 * it existed. `sha` is any commit of the repository (a ref must point at an object); the run's
 * head is used, so the claim also shows where the run stood.
 */
export async function claimGeneration(gh: RepoContext, runId: string, gen: number, sha: string): Promise<boolean> {
  try {
    await gh.octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner: gh.owner, repo: gh.repo, ref: leaseRef(runId, gen), sha });
    return true;
  } catch (err) {
    // Only "Reference already exists" means another claim; any other refusal is an error.
    if (statusOf(err) === 422 && /already exists/i.test(messageOf(err))) return false;
    throw err;
  }
}

/**
 * Whether generation `gen` of a run is claimed already (by any process). One read: how an event
 * that would change nothing learns whether its view of the run is current before dropping itself.
 */
export async function generationClaimed(gh: RepoContext, runId: string, gen: number): Promise<boolean> {
  try {
    await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: gh.owner, repo: gh.repo, ref: leaseRef(runId, gen).slice('refs/'.length) });
    return true;
  } catch (err) {
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

/** The commit a claim points at: the one given (a step's new commit, the run's base), else the run's head. */
export function claimSha(state: RunState, preferred?: string): string {
  const sha = preferred || state.head;
  if (!sha) throw new Error(`run ${state.runId}: no commit to point its claim at`);
  return sha;
}

/** One event's claim: taken at most once, before the event's first effect. */
export class EventClaim {
  private claimedAt: number | null = null;

  constructor(
    private readonly gh: RepoContext,
    /**
     * The generation of the record this process holds (the claim is the next one), and when that
     * view was last confirmed current on `clock` (loaded from GitHub, or a claim won).
     */
    private readonly memory: { gen: number; confirmedAt?: number },
    private readonly clock: () => number,
    private readonly ttlMs: number,
    /** Called with each claim's time (ms spent in the request), for the lease metrics. */
    private readonly onClaim?: (ms: number) => void,
    /** The claims' grace period (see the top of this file): an older view is reloaded before it claims. */
    private readonly graceMs: number = DEFAULT_CLAIM_GRACE_MS,
  ) {}

  /** Throws StaleView when the view this process holds is older than the grace period (runs.ts always dates it). */
  private checkFresh(runId: string): void {
    if (this.memory.confirmedAt === undefined) return;
    const age = this.clock() - this.memory.confirmedAt;
    if (age > this.graceMs) throw new StaleView(runId, age);
  }

  get claimed(): boolean {
    return this.claimedAt !== null;
  }

  /**
   * For an event that changes nothing: throws LeaseTaken when another process has claimed the
   * generation after the record this process holds — its "nothing to do" came from a stale view
   * (a worker of an attempt another process dispatched, an answer to a question it has not seen
   * asked), and the event is applied again on the newer record.
   */
  async ensureCurrent(runId: string): Promise<void> {
    if (this.claimedAt !== null) return;
    this.checkFresh(runId);
    const gen = this.memory.gen + 1;
    if (await generationClaimed(this.gh, runId, gen)) throw new LeaseTaken(runId, gen);
  }

  /**
   * Claims the next generation unless this event holds a claim young enough; renews an old one
   * by claiming the next. Throws LeaseTaken (first claim lost: a stale view) or LeaseExpired
   * (renewal lost: another process took the run over).
   */
  async ensure(state: RunState, sha?: string): Promise<void> {
    let age = 0;
    if (this.claimedAt !== null) {
      age = this.clock() - this.claimedAt;
      if (age <= this.ttlMs - leaseMargin(this.ttlMs)) return;
      // Past the grace period the next claim may have been taken over and deleted since: stop.
      if (age >= this.graceMs) throw new LeaseExpired(state.runId, this.memory.gen, age);
    } else this.checkFresh(state.runId);
    const gen = this.memory.gen + 1;
    // Measured from before the request: GitHub may have created the ref the moment it was sent.
    const start = this.clock();
    const won = await claimGeneration(this.gh, state.runId, gen, claimSha(state, sha));
    this.onClaim?.(this.clock() - start);
    if (!won) throw this.claimedAt === null ? new LeaseTaken(state.runId, gen) : new LeaseExpired(state.runId, this.memory.gen, age);
    this.claimedAt = start;
    this.memory.gen = gen;
    this.memory.confirmedAt = start;
  }
}
