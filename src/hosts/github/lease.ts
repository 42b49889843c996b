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
// then stops (`LeaseExpired`). The holder's clock starts when its create goes out to GitHub (not
// when it was queued behind other writes): before GitHub made the ref, so before any waiter's
// clock, and two processes never act at once as long as clocks run at the same rate (no two
// clocks are compared).
//
// Claims are deleted again (prune.ts, from the sweep), which would let a process holding an old
// view win a generation it should lose. Two rules keep that from happening: (1) a process never
// claims from a view confirmed longer ago than the grace period G on its own clock (`StaleView`:
// loaded from GitHub, or its own claim won; runs.ts reloads), and a holder never renews a claim
// older than G; (2) the sweep deletes the claims of generations ≤ n only once the status
// comment holding a record of generation m ≥ n has an `updated_at` more than G + M older than the
// `Date` of the answer that listed it — both stamped by GitHub, so no two machines' clocks are
// compared, and any process can tell, one that has just started too. Why (2) is sound: `updated_at`
// is no earlier than the write of record m (a later edit only makes it younger), and a view below
// n ≤ m was confirmed before that write — a record below m was read, or a claim below m won, and
// claim m was made after both. The delete comes after the `Date`, so more than G + M after the
// write on GitHub's clock; M (a minute) covers what that assumes of GitHub — its servers' clocks
// agree within it, both stamps are whole seconds, a read replica lags a write by less — so more
// than G has passed since the confirmation, on the holder's clock too as long as clocks run at
// the same rate, and the holder reloads instead of claiming. A takeover stays correct as long as
// TTL ≤ G: the claim a taker skips is above every record, so never deleted, and a holder's
// renewal is refused past G after its claim, while the taker's record came a TTL later still.
// Claims above the newest record (a claim whose process died) are never deleted: the run's next
// event takes them over and moves its record past them.
//
// What a claim points at: the process's claim anchor (ClaimAnchors), a commit made from the
// default branch's tip that names its maker — so GitHub's workflow-file rule, which compares a
// new ref with the default branch's current workflow files, accepts it however long the run has
// been open, and a claim read back after a lost answer tells whose it is — or a step's commit
// this process made (which names its maker too), when the claim also keeps that commit (host.ts).
// GitHub's answers are read for what they say (claimGeneration): "Reference update failed" and
// an unanswered create settle nothing and are sent again; "already exists" after an unanswered
// try is checked against the ref's commit, so a process never waits a time-to-live for itself.
import type { RunState } from '../../engine/index.ts';
import { messageOf, statusOf, type RepoContext } from './client.ts';
import { createRef, readRef, type OnSend } from './git-refs.ts';
import { defaultBranchTip, workflowRuleRefusal } from './workflow-rule.ts';

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
 * Claims generation `gen` of a run: true when this process holds the claim, false when another
 * does. Made through createRef (git-refs.ts), which reads GitHub's answers; a claim that
 * exists after an unanswered try is this process's own when it points at `sha`, which names its
 * maker (the claim anchor, or a step commit this process made): no other process points a claim
 * at it, so a process never takes its own claim for another's and waits a time-to-live for itself.
 */
export async function claimGeneration(gh: RepoContext, runId: string, gen: number, sha: string, pause?: (attempt: number) => Promise<void>, onSend?: OnSend): Promise<boolean> {
  const made = await createRef(gh, leaseRef(runId, gen), sha, pause, onSend);
  if (made.created) return true;
  return made.unanswered && (await made.pointsAt()) === sha;
}

/** The first line of a claim anchor's message, and the trailer of a step commit: how a commit names the baton process that made it. */
export const ANCHOR_SUBJECT = 'baton claims of process ';
export const MAKER_TRAILER = 'Baton-Maker: ';

/**
 * Who made the claim of generation `gen`: `baton` when it points at a commit a baton process made
 * for its claims (an anchor, a step commit naming its maker), `foreign` with the commit when not
 * (someone who can create refs made it, or a baton older than claim anchors), null when there is
 * no such claim. Two reads; asked once per wait on a claim whose record has not come.
 */
export async function claimMaker(gh: RepoContext, runId: string, gen: number): Promise<{ baton: boolean; sha: string } | null> {
  const sha = await readRef(gh, leaseRef(runId, gen));
  if (sha === null) return null;
  const commit = await gh.octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner: gh.owner, repo: gh.repo, commit_sha: sha }).catch((err: unknown) => {
    // A ref onto a tree or a blob is no commit of baton's.
    if (statusOf(err) === 404) return null;
    throw err;
  });
  const message = commit?.data.message ?? '';
  const baton = new RegExp(`^${ANCHOR_SUBJECT}[0-9a-f]+\\b`).test(message) || new RegExp(`(^|\\n)${MAKER_TRAILER}[0-9a-f]+\\s*$`).test(message);
  return { baton, sha };
}

/**
 * Whether generation `gen` of a run is claimed already (by any process). One read: how an event
 * that would change nothing learns whether its view of the run is current before dropping itself.
 */
export async function generationClaimed(gh: RepoContext, runId: string, gen: number): Promise<boolean> {
  return (await readRef(gh, leaseRef(runId, gen))) !== null;
}

/**
 * The commits this process points its claims at, one per repository: made from the default
 * branch's tip (its tree, that tip as parent), so that GitHub's workflow-file rule, which compares
 * a new ref with the default branch's current workflow files (workflow-rule.ts), takes them; and
 * with the process's own maker id in the message, so that no other process's claim points at
 * the same commit and a claim read back after a lost answer tells whose it is. Made on the first
 * claim (two requests per process and repository), and again when the default branch's
 * workflow files have changed since (GitHub then refuses the claim).
 */
export class ClaimAnchors {
  private readonly anchors = new Map<string, Promise<string>>();

  /** `maker`: this process's id (CommitCache.maker), written into its anchors as into its step commits. */
  constructor(readonly maker: string) {}

  private key(gh: RepoContext): string {
    return `${gh.owner}/${gh.repo}`.toLowerCase();
  }

  get(gh: RepoContext): Promise<string> {
    const key = this.key(gh);
    let anchor = this.anchors.get(key);
    if (!anchor) {
      anchor = this.make(gh);
      // A failed read or write is not remembered: the next claim tries again.
      anchor.catch(() => this.anchors.delete(key));
      this.anchors.set(key, anchor);
    }
    return anchor;
  }

  /** The anchor was refused (the default branch's workflow files changed since it was made): a new one. */
  renew(gh: RepoContext): Promise<string> {
    this.anchors.delete(this.key(gh));
    return this.get(gh);
  }

  private async make(gh: RepoContext): Promise<string> {
    const tip = await defaultBranchTip(gh);
    const message = `${ANCHOR_SUBJECT}${this.maker}\n\nbaton's claim refs (${LEASE_PREFIX}) point at this commit: it has ${gh.defaultBranch}'s files, and names the App process that made it.`;
    const res = await gh.octokit.request('POST /repos/{owner}/{repo}/git/commits', { owner: gh.owner, repo: gh.repo, message, tree: tip.tree, parents: [tip.sha] });
    return res.data.sha;
  }
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
    /** What claims point at; none: the run's head (tests of the claim protocol alone). */
    private readonly anchors?: ClaimAnchors,
    /** Waits between tries of a claim whose answer settled nothing (attempt 1, 2, …). */
    private readonly pause?: (attempt: number) => Promise<void>,
  ) {}

  /** Throws StaleView when the view this process holds is older than the grace period (runs.ts always dates it). */
  private checkFresh(runId: string): void {
    if (this.memory.confirmedAt === undefined) return;
    const age = this.clock() - this.memory.confirmedAt;
    if (age > this.graceMs) throw new StaleView(runId, age);
  }

  /** The commit GitHub made this event's claim ref point at, when it was asked to keep one (a step's commit): GitHub's own word that it has it. */
  keeps: string | null = null;

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
   * by claiming the next. `sha`: a commit this process made that the claim should keep (a step's
   * commit merged without moving the branch, host.ts); else the claim anchor. Throws LeaseTaken
   * (first claim lost: a stale view), LeaseExpired (renewal lost: another process took the run
   * over), or GitHub's refusal of `sha` (the caller claims on the anchor instead).
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
    const start = this.clock();
    // The claim's life is counted from when its create first went out to GitHub (GitHub may have
    // made the ref that very moment; a waiter's clock starts only once it has seen it), not from
    // when it was queued: behind a deep write queue (every run's writes paced one a second per
    // installation) the wait would age the claim and each event would renew it — one more queued
    // write. A client that does not tell when a request goes out leaves the time before the
    // request, which only ever counts a claim older than it is.
    let sentAt: number | undefined;
    const won = await this.claim(state, gen, sha, () => (sentAt ??= this.clock()));
    this.onClaim?.(this.clock() - start);
    if (!won) throw this.claimedAt === null ? new LeaseTaken(state.runId, gen) : new LeaseExpired(state.runId, this.memory.gen, age);
    const from = sentAt ?? start;
    if (sha) this.keeps = sha;
    this.claimedAt = from;
    this.memory.gen = gen;
    this.memory.confirmedAt = from;
  }

  private async claim(state: RunState, gen: number, sha: string | undefined, onSend: OnSend): Promise<boolean> {
    const pause = this.pause;
    const send = (at: string) => claimGeneration(this.gh, state.runId, gen, at, pause, onSend);
    if (sha) return send(sha);
    if (!this.anchors) return send(claimSha(state));
    const anchor = await this.anchors.get(this.gh);
    try {
      return await send(anchor);
    } catch (err) {
      // The default branch's workflow files changed since the anchor was made, or the anchor is
      // gone (its last claim was pruned and GitHub collected it): a new anchor, once.
      if (!workflowRuleRefusal(err) && !(statusOf(err) === 422 && /object does not exist/i.test(messageOf(err)))) throw err;
      return send(await this.anchors.renew(this.gh));
    }
  }
}

/** The run's head, for claims made without anchors. */
function claimSha(state: RunState): string {
  if (!state.head) throw new Error(`run ${state.runId}: no commit to point its claim at`);
  return state.head;
}
