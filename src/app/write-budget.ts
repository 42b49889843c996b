// The door every write of the App passes: an Octokit plugin in front of the throttling plugin
// (registered after it, so its hook runs first). One door per installation; the doors whose
// writes count against one budget (every installation's, by default: `scope` below) form a group
// (BudgetGroup), which
//  - keeps writes inside GitHub's documented secondary limit on content-creating requests
//    (docs "Rate limits for the REST API": 80 a minute, 500 an hour; which requests count is
//    not published, so every write counts, retries too), holding back a reserve that only
//    people's commands may spend;
//  - lets writes through to the throttle (which still spaces them a second apart) a couple at a
//    time, choosing which by priority and lane (write-lanes.ts) — not first in first out: a
//    person's command first, then runs' starts up to their first dispatch (oldest first, so each
//    run gets its worker going as soon as it can), then everything else, lanes taking turns;
//  - when the budget is spent, holds writes until it returns (they never fail for it), and tells
//    a run whose write has waited long that it waits, once per event (deferral-notice.ts).
import { performance } from 'node:perf_hooks';
import type { BudgetLedger, Limits } from './budget-ledger.ts';
import { asCommand, CLASS_RANK, classOf, currentLane, type LaneContext, type WriteClass } from './write-lanes.ts';

/**
 * GitHub's documented secondary limits on content-creating requests ("In general, no more than 80
 * content-generating requests per minute and no more than 500 content-generating requests per hour
 * are allowed": docs "Rate limits for the REST API", § About secondary rate limits). Per what
 * identity, the docs do not say (ISSUE U4; tests/emulator/readings.ts `secondaryLimitIdentity`).
 */
export const GITHUB_WRITE_BUDGET = { perMinute: 80, perHour: 500 } as const;

/**
 * What one budget covers. `app` (default): every installation of the App together — right under
 * every reading of GitHub's silence (per installation, per App, per the App's one `[bot]` account),
 * at the cost, were GitHub's count per installation, of an App with several busy installations
 * waiting when it need not. `installation`: one budget per installation, for an operator who has
 * settled U4 as per installation (docs/conformance.md) and wants each installation's full share.
 */
export type BudgetScope = 'app' | 'installation';

export interface WriteBudgetOptions {
  perMinute: number;
  perHour: number;
  scope: BudgetScope;
  /** Percent of both limits kept for people's commands (other writes stop short of it). */
  reservePercent: number;
  /** How long a run's write may wait for the budget before its status comment says so (ms, GitHub's time). */
  noticeAfterMs: number;
}

export const DEFAULT_WRITE_BUDGET: WriteBudgetOptions = { ...GITHUB_WRITE_BUDGET, scope: 'app', reservePercent: 10, noticeAfterMs: 60_000 };

/**
 * Writes let through to the throttle at once. More than one, so that a comment waiting out its
 * own three-second spacing (the throttle's notifications group) does not hold every other
 * write; few, so that the order is decided here and not in the throttle's FIFO queue.
 */
export const WRITES_IN_FLIGHT = 2;

/** The budget from BATON_WRITE_BUDGET_PER_MINUTE, _PER_HOUR, _SCOPE (`app`, `installation`), _RESERVE (percent), _NOTICE_AFTER (seconds). */
export function writeBudgetFromEnv(env: Record<string, string | undefined>): Partial<WriteBudgetOptions> {
  const out: Partial<WriteBudgetOptions> = {};
  const read = (name: string, min: number, max: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v.trim() === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return n;
  };
  const perMinute = read('BATON_WRITE_BUDGET_PER_MINUTE', 1, 100_000);
  const perHour = read('BATON_WRITE_BUDGET_PER_HOUR', 1, 1_000_000);
  const reserve = read('BATON_WRITE_BUDGET_RESERVE', 0, 50);
  const notice = read('BATON_WRITE_BUDGET_NOTICE_AFTER', 1, 86_400);
  if (perMinute !== undefined) out.perMinute = perMinute;
  if (perHour !== undefined) out.perHour = perHour;
  if (reserve !== undefined) out.reservePercent = reserve;
  if (notice !== undefined) out.noticeAfterMs = notice * 1000;
  const scope = env.BATON_WRITE_BUDGET_SCOPE?.trim();
  if (scope !== undefined && scope !== '') {
    if (scope !== 'app' && scope !== 'installation') throw new Error(`BATON_WRITE_BUDGET_SCOPE must be app or installation, got ${JSON.stringify(env.BATON_WRITE_BUDGET_SCOPE)}`);
    out.scope = scope;
  }
  return out;
}

interface Waiter {
  seq: number;
  ctx: LaneContext | undefined;
  enqueuedAt: number;
  grant: () => void;
  /** Its event was told it waits: when (performance.now()) and the estimate given (GitHub's ms). */
  told?: { at: number; estimateMs: number };
}

/** A write let through: `release` frees its place once it went out; `done` once it was answered. */
export interface Granted {
  release: () => void;
  done: () => void;
}

/** What the door reports (metrics): each write's wait for its turn, and deferral notices. */
export interface DoorReport {
  waitMs: number;
  cls: WriteClass;
  lane?: string;
  /** For the write whose wait its run was told of: the estimate shown (GitHub's ms)… */
  noticedEstimateMs?: number;
  /** …and how long it waited from the notice until let through (GitHub's ms). */
  waitedSinceNoticeMs?: number;
}

/**
 * The writes that take from one budget (one ledger key): every installation's door when the budget
 * is the App's (`scope: 'app'`), one installation's otherwise. It decides which waiting write of
 * its doors goes next and takes it from the ledger, so that priorities and lanes hold across the
 * installations sharing the budget (a lane is a thread, `owner/repo#n`: unique across them); each
 * door keeps its own writes in flight, as GitHub's pacing (Probot's throttle) is its own.
 */
export class BudgetGroup {
  readonly doors = new Set<InstallationDoor>();
  /** When each lane last had a write let through (a counter): the least recently served goes next. */
  private readonly served = new Map<string, number>();
  private seqNo = 0;
  private pumping = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  /** How many times the budget held a write back: a door's gap between grants spanning one is the budget's, not its pace. */
  holds = 0;
  /** The write whose grant is being taken from the ledger: its event is getting its turn, not told it waits. */
  taking: Waiter | undefined;

  constructor(
    /** The ledger's key: an installation's id, or `app` for every installation together. */
    readonly key: string,
    readonly ledger: BudgetLedger,
    private readonly budget: WriteBudgetOptions,
    private readonly warn: (msg: string) => void,
  ) {}

  /** Limits a write of `cls` may use: all of them for people's commands, short of the reserve for the rest. */
  limits(cls: WriteClass): Limits {
    const { perMinute, perHour, reservePercent } = this.budget;
    if (cls === 'command') return { perMinute, perHour };
    const keep = 1 - reservePercent / 100;
    return { perMinute: Math.max(1, Math.floor(perMinute * keep)), perHour: Math.max(1, Math.floor(perHour * keep)) };
  }

  /** A number that orders waiters and grants across the group's doors. */
  nextSeq(): number {
    return this.seqNo++;
  }

  /** What the budget is (log lines). */
  get what(): string {
    return this.key === APP_BUDGET_KEY ? 'the App (all installations)' : `installation ${this.key}`;
  }

  /** Whether `a` goes before `b`, both of class rank `rank`: starts oldest event first; the rest by lanes in turn. */
  before(a: Waiter, b: Waiter, rank: number): boolean {
    if (rank === CLASS_RANK.start) {
      const sa = a.ctx?.since ?? Infinity;
      const sb = b.ctx?.since ?? Infinity;
      if (sa !== sb) return sa < sb;
      return a.seq < b.seq;
    }
    const la = this.served.get(a.ctx?.lane ?? '') ?? -1;
    const lb = this.served.get(b.ctx?.lane ?? '') ?? -1;
    if (la !== lb) return la < lb;
    return a.seq < b.seq;
  }

  /**
   * Writes that go before `w` (of class `cls`) or are it, for the notice's estimate: those of every
   * door waiting at its class or above, and one notice for each waiting event not told yet (its own
   * included: the notice is written first) — a notice spends the budget from the reserve, so each
   * one pushes every other write one grant later.
   */
  ahead(cls: WriteClass, w: Waiter): number {
    let n = 0;
    const untold = new Set<LaneContext>();
    for (const d of this.doors) {
      n += d.waitingAtOrAbove(CLASS_RANK[cls], w);
      d.untold(untold);
    }
    return n + untold.size;
  }

  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.drain().finally(() => {
      this.pumping = false;
      if (this.again) this.pump();
    });
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        let best: { door: InstallationDoor; w: Waiter; rank: number } | undefined;
        for (const door of this.doors) {
          const w = door.candidate();
          if (!w) continue;
          const rank = CLASS_RANK[classOf(w.ctx)];
          if (!best || rank > best.rank || (rank === best.rank && this.before(w, best.w, rank))) best = { door, w, rank };
        }
        if (!best) break;
        let wait: number;
        this.taking = best.w;
        try {
          wait = await this.ledger.take(this.key, this.limits(classOf(best.w.ctx)));
        } catch (err) {
          // The shared ledger out of reach: GitHub's pacing still holds (the throttle), and a write
          // let through is better than every write of the installation stuck.
          this.warn(`the write budget of ${this.what} could not be read (${(err as Error).message}); the write goes out paced only`);
          wait = 0;
        } finally {
          this.taking = undefined;
        }
        if (wait > 0) {
          this.holds++;
          this.wakeIn(wait);
          break;
        }
        // Taken from the ledger: let through (its event cannot have begun its notice meanwhile: tell()).
        if (!best.door.admit(best.w)) continue;
        this.served.set(best.w.ctx?.lane ?? '', this.nextSeq());
        if (this.served.size > 10_000) this.served.clear();
      }
    } while (this.again);
  }

  private wakeIn(ms: number): void {
    const due = performance.now() + ms;
    if (this.timer && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Infinity;
      this.pump();
    }, Math.max(1, Math.ceil(ms)));
  }
}

/** The ledger key of the budget every installation of the App shares (`scope: 'app'`). */
export const APP_BUDGET_KEY = 'app';

/** One installation's door: its waiting writes, let through in the order its budget's group decides. */
export class InstallationDoor {
  private readonly waiters: Waiter[] = [];
  private inFlight = 0;
  /** Events already told they wait (once per event's lane, not per write). */
  private readonly noticed = new WeakSet<LaneContext>();
  /**
   * Events whose notice is being written: none of their own writes is let through meanwhile. The
   * notice rewrites the status comment from the body the event last wrote; were the event's next
   * record write sent while the notice is out, the notice could land after it and put the older
   * state back on GitHub (a finished run shown running, waiting, for good).
   */
  private readonly telling = new Set<LaneContext>();
  /** Starts' writes let through and not answered yet: their events' next writes are coming. */
  private startsOut = 0;
  /**
   * How fast this installation's queue moves when the budget holds nothing back: the time between
   * writes let through back to back (ms, a moving average) — GitHub's pacing and answers. A wait
   * in a burst can be that, not the budget: the notice's estimate takes the longer of the two.
   */
  private pace = 0;
  private lastGrant: { at: number; holds: number; queued: boolean } | undefined;
  /** The budget this door's writes take from (a group of its own unless one is given). */
  readonly group: BudgetGroup;

  constructor(
    key: string,
    ledger: BudgetLedger,
    budget: WriteBudgetOptions,
    private readonly noticeAfterMs: number,
    /** GitHub's time per millisecond of the door's (1 in production; tests compress time). */
    private readonly scale: number,
    private readonly warn: (msg: string) => void,
    private readonly report?: (r: DoorReport) => void,
    group?: BudgetGroup,
  ) {
    this.group = group ?? new BudgetGroup(key, ledger, budget, warn);
    this.group.doors.add(this);
  }

  /** Limits a write of `cls` may use: all of them for people's commands, short of the reserve for the rest. */
  limits(cls: WriteClass): Limits {
    return this.group.limits(cls);
  }

  /** Waits for the write's turn; resolves with what frees its place once it went out, and once it was answered. */
  enter(ctx: LaneContext | undefined): Promise<Granted> {
    return new Promise((resolve) => {
      const enqueuedAt = performance.now();
      const waiter: Waiter = {
        seq: this.group.nextSeq(),
        ctx,
        enqueuedAt,
        grant: () => {
          clearTimeout(notice);
          const cls = classOf(ctx);
          const now = performance.now();
          this.report?.({
            waitMs: now - enqueuedAt,
            cls,
            ...(ctx ? { lane: ctx.lane } : {}),
            ...(waiter.told ? { noticedEstimateMs: waiter.told.estimateMs, waitedSinceNoticeMs: (now - waiter.told.at) / this.scale } : {}),
          });
          const start = cls === 'start';
          if (start) this.startsOut++;
          let released = false;
          let answered = false;
          resolve({
            release: () => {
              if (released) return;
              released = true;
              this.inFlight--;
              this.group.pump();
            },
            done: () => {
              if (answered || !start) return;
              answered = true;
              // The event's next write reaches the door within the same turn of the event loop.
              setImmediate(() => {
                this.startsOut--;
                this.group.pump();
              });
            },
          });
        },
      };
      const notice = setTimeout(() => void this.tell(waiter), this.noticeAfterMs);
      this.waiters.push(waiter);
      this.group.pump();
    });
  }

  /**
   * The write this door would let through next, if it may let one through now: its place in flight
   * free, and no write of lower priority slipping between a start's writes. A start's writes follow
   * each other (claim, run branch, dispatch), each sent once the previous one is answered: while one
   * is out, a write of lower priority waits for the next rather than take its place — else each start
   * lets another run's bookkeeping in before its dispatch, several times over in a burst. The wait
   * lasts one answer (and a turn of the event loop) at most.
   */
  candidate(): Waiter | undefined {
    if (this.inFlight >= WRITES_IN_FLIGHT) return undefined;
    let best: Waiter | undefined;
    let bestRank = -1;
    for (const w of this.waiters) {
      if (w.ctx && this.telling.has(w.ctx)) continue;
      const rank = CLASS_RANK[classOf(w.ctx)];
      if (!best || rank > bestRank || (rank === bestRank && this.group.before(w, best, rank))) [best, bestRank] = [w, rank];
    }
    if (best && this.startsOut > 0 && bestRank < CLASS_RANK.start) return undefined;
    return best;
  }

  /** Lets `w` through (its budget taken); false when it no longer waits here. */
  admit(w: Waiter): boolean {
    const i = this.waiters.indexOf(w);
    if (i < 0 || this.inFlight >= WRITES_IN_FLIGHT || (w.ctx && this.telling.has(w.ctx))) return false;
    this.waiters.splice(i, 1);
    this.inFlight++;
    const now = performance.now();
    const last = this.lastGrant;
    if (last?.queued && last.holds === this.group.holds) this.pace = this.pace === 0 ? now - last.at : 0.8 * this.pace + 0.2 * (now - last.at);
    this.lastGrant = { at: now, holds: this.group.holds, queued: this.waiters.length > 0 };
    w.grant();
    return true;
  }

  /** Writes waiting here of rank `rank` or above, `w` counted whatever its rank. */
  waitingAtOrAbove(rank: number, w: Waiter): number {
    return this.waiters.filter((o) => o === w || CLASS_RANK[classOf(o.ctx)] >= rank).length;
  }

  /** Adds to `into` the events waiting here that may yet be told they wait (a notice each). */
  untold(into: Set<LaneContext>): void {
    for (const o of this.waiters) if (o.ctx?.notice && !this.noticed.has(o.ctx)) into.add(o.ctx);
  }

  /** A write waited past the threshold: its run says so, once per event, with an estimate. */
  private async tell(w: Waiter): Promise<void> {
    const ctx = w.ctx;
    if (!ctx?.notice || this.noticed.has(ctx) || !this.waiters.includes(w)) return;
    // One of its event's writes is being let through this moment: it is not waiting for the budget.
    if (this.group.taking?.ctx === ctx) return;
    const cls = classOf(ctx);
    // Every write that goes before it, in every installation sharing the budget (counted before
    // this event is marked told: its own notice is among them).
    const ahead = this.group.ahead(cls, w);
    this.noticed.add(ctx);
    // Held from here, in the same turn as the check that the write still waits.
    this.telling.add(ctx);
    // Its own installation's writes ahead, at the pace its queue has been moving.
    const paced = this.waitingAtOrAbove(CLASS_RANK[cls], w) * this.pace;
    try {
      const estimate = Math.max(await this.group.ledger.estimate(this.group.key, this.limits(cls), ahead), paced) / this.scale;
      w.told = { at: performance.now(), estimateMs: estimate };
      await asCommand(ctx, () => ctx.notice!(estimate));
    } catch (err) {
      this.warn(`could not tell lane ${ctx.lane} that it waits for GitHub's write budget: ${(err as Error).message}`);
    } finally {
      this.telling.delete(ctx);
      this.group.pump();
    }
  }

  /** A write that went out again (a retry): counted, never waited for (it holds its place already). */
  async chargeRetry(): Promise<void> {
    await this.group.ledger.charge(this.group.key).catch(() => undefined);
  }

  /** Writes waiting for their turn (metrics, tests). */
  get waiting(): number {
    return this.waiters.length;
  }
}

/** Writes as GitHub counts content-creating requests: anything but reads and the App's own token calls. */
export function isWrite(method: string | undefined, url: string | undefined): boolean {
  const m = (method ?? 'GET').toUpperCase();
  if (m === 'GET' || m === 'HEAD') return false;
  const path = new URL(url ?? '/', 'http://github.test').pathname;
  return !/^\/(?:api\/v3\/)?(?:app|applications)\//.test(path);
}

const DISPATCH = /\/actions\/workflows\/[^/]+\/dispatches$/;

type Hookable = { hook: { wrap(name: 'request', wrapper: (request: (o: any) => Promise<any>, options: any) => Promise<any>): void } };

export interface DoorRegistry {
  doorFor(installation: string, ledger: () => BudgetLedger): InstallationDoor;
}

/**
 * The plugin: writes of an installation's Octokit (batonOctokit sets the installation id as the
 * throttle's id) wait at that installation's door; the App's own Octokit passes (its writes
 * are token requests, not content).
 */
export function writeBudgetPlugin(doors: DoorRegistry, ledgerOf: (options: { throttle?: { connection?: unknown } }) => BudgetLedger) {
  return (octokit: Hookable, octokitOptions: { auth?: { installationId?: number | string }; throttle?: { id?: string; connection?: unknown; enabled?: boolean } }): void => {
    // Every installation client Probot makes carries its installation in its auth options (the
    // one a webhook's handler gets has no throttle id of Probot's: octokit.ts throttleIdOf).
    const id = octokitOptions.auth?.installationId ?? octokitOptions.throttle?.id;
    if (id === undefined || id === 'no-id') return;
    const installation = String(id);
    let ledger: BudgetLedger | undefined;
    const door = () => doors.doorFor(installation, () => (ledger ??= ledgerOf(octokitOptions)));
    octokit.hook.wrap('request', async (request, options) => {
      if (!isWrite(options.method, options.url)) return request(options);
      const ctx = currentLane();
      const d = door();
      const { release, done } = await d.enter(ctx);
      if (ctx?.cls === 'start' && DISPATCH.test(String(options.url).split('?')[0]!)) ctx.dispatched = true;
      let sent = false;
      const inner: typeof fetch = options.request?.fetch ?? globalThis.fetch;
      // Its place is freed once the throttle let it go (its fetch called): the throttle spaces it.
      // Every later try (the throttle's and retry plugin's retries) is one more request GitHub counts.
      options.request = {
        ...options.request,
        fetch: (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
          if (!sent) {
            sent = true;
            release();
          } else void d.chargeRetry();
          return inner(input, init);
        },
      };
      try {
        return await request(options);
      } finally {
        if (!sent) release();
        done();
      }
    });
  };
}
