// The door every write of the App passes: an Octokit plugin in front of the throttling plugin
// (registered after it, so its hook runs first). Per installation it
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

/** GitHub's documented secondary limits on content-creating requests, per installation. */
export const GITHUB_WRITE_BUDGET = { perMinute: 80, perHour: 500 } as const;

export interface WriteBudgetOptions {
  perMinute: number;
  perHour: number;
  /** Percent of both limits kept for people's commands (other writes stop short of it). */
  reservePercent: number;
  /** How long a run's write may wait for the budget before its status comment says so (ms, GitHub's time). */
  noticeAfterMs: number;
}

export const DEFAULT_WRITE_BUDGET: WriteBudgetOptions = { ...GITHUB_WRITE_BUDGET, reservePercent: 10, noticeAfterMs: 60_000 };

/**
 * Writes let through to the throttle at once. More than one, so that a comment waiting out its
 * own three-second spacing (the throttle's notifications group) does not hold every other
 * write; few, so that the order is decided here and not in the throttle's FIFO queue.
 */
export const WRITES_IN_FLIGHT = 2;

/** The budget from BATON_WRITE_BUDGET_PER_MINUTE, _PER_HOUR, _RESERVE (percent), _NOTICE_AFTER (seconds). */
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
  return out;
}

interface Waiter {
  seq: number;
  ctx: LaneContext | undefined;
  enqueuedAt: number;
  grant: () => void;
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
}

/** One installation's door: its waiting writes and the order they are let through in. */
export class InstallationDoor {
  private readonly waiters: Waiter[] = [];
  private inFlight = 0;
  private seq = 0;
  /** When each lane last had a write let through (a counter): the least recently served goes next. */
  private readonly served = new Map<string, number>();
  private pumping = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
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

  constructor(
    private readonly key: string,
    private readonly ledger: BudgetLedger,
    private readonly budget: WriteBudgetOptions,
    private readonly noticeAfterMs: number,
    /** GitHub's time per millisecond of the door's (1 in production; tests compress time). */
    private readonly scale: number,
    private readonly warn: (msg: string) => void,
    private readonly report?: (r: DoorReport) => void,
  ) {}

  /** Limits a write of `cls` may use: all of them for people's commands, short of the reserve for the rest. */
  limits(cls: WriteClass): Limits {
    const { perMinute, perHour, reservePercent } = this.budget;
    if (cls === 'command') return { perMinute, perHour };
    const keep = 1 - reservePercent / 100;
    return { perMinute: Math.max(1, Math.floor(perMinute * keep)), perHour: Math.max(1, Math.floor(perHour * keep)) };
  }

  /** Waits for the write's turn; resolves with what frees its place once it went out, and once it was answered. */
  enter(ctx: LaneContext | undefined): Promise<Granted> {
    return new Promise((resolve) => {
      const enqueuedAt = performance.now();
      const waiter: Waiter = {
        seq: this.seq++,
        ctx,
        enqueuedAt,
        grant: () => {
          clearTimeout(notice);
          const cls = classOf(ctx);
          this.report?.({ waitMs: performance.now() - enqueuedAt, cls });
          const start = cls === 'start';
          if (start) this.startsOut++;
          let released = false;
          let answered = false;
          resolve({
            release: () => {
              if (released) return;
              released = true;
              this.inFlight--;
              this.pump();
            },
            done: () => {
              if (answered || !start) return;
              answered = true;
              // The event's next write reaches the door within the same turn of the event loop.
              setImmediate(() => {
                this.startsOut--;
                this.pump();
              });
            },
          });
        },
      };
      const notice = setTimeout(() => void this.tell(waiter), this.noticeAfterMs);
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** The next write to let through: highest class; starts oldest event first; the rest by lanes in turn. */
  private pick(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestRank = -1;
    for (const w of this.waiters) {
      if (w.ctx && this.telling.has(w.ctx)) continue;
      const cls = classOf(w.ctx);
      const rank = CLASS_RANK[cls];
      if (!best || rank > bestRank || (rank === bestRank && this.before(w, best, rank))) [best, bestRank] = [w, rank];
    }
    return best;
  }

  private before(a: Waiter, b: Waiter, rank: number): boolean {
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

  private pump(): void {
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
      while (this.inFlight < WRITES_IN_FLIGHT && this.waiters.length) {
        const next = this.pick();
        if (!next) break;
        // A start's writes follow each other (claim, run branch, dispatch), each sent once the
        // previous one is answered: while one is out, a write of lower priority waits for the next
        // rather than take its place — else each start lets another run's bookkeeping in before
        // its dispatch, several times over in a burst. The wait lasts one answer (and a turn of the event loop) at most.
        if (this.startsOut > 0 && CLASS_RANK[classOf(next.ctx)] < CLASS_RANK.start) break;
        let wait: number;
        try {
          wait = await this.ledger.take(this.key, this.limits(classOf(next.ctx)));
        } catch (err) {
          // The shared ledger out of reach: GitHub's pacing still holds (the throttle), and a write
          // let through is better than every write of the installation stuck.
          this.warn(`the write budget of installation ${this.key} could not be read (${(err as Error).message}); the write goes out paced only`);
          wait = 0;
        }
        if (wait > 0) {
          this.wakeIn(wait);
          break;
        }
        this.waiters.splice(this.waiters.indexOf(next), 1);
        this.inFlight++;
        this.served.set(next.ctx?.lane ?? '', this.seq++);
        if (this.served.size > 10_000) this.served.clear();
        next.grant();
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

  /** A write waited past the threshold: its run says so, once per event, with an estimate. */
  private async tell(w: Waiter): Promise<void> {
    const ctx = w.ctx;
    if (!ctx?.notice || this.noticed.has(ctx) || !this.waiters.includes(w)) return;
    this.noticed.add(ctx);
    // Held from here, in the same turn as the check that the write still waits.
    this.telling.add(ctx);
    const cls = classOf(ctx);
    const ahead = this.waiters.filter((o) => o === w || CLASS_RANK[classOf(o.ctx)] >= CLASS_RANK[cls]).length;
    try {
      const estimate = await this.ledger.estimate(this.key, this.limits(cls), ahead);
      await asCommand(ctx, () => ctx.notice!(estimate / this.scale));
    } catch (err) {
      this.warn(`could not tell lane ${ctx.lane} that it waits for GitHub's write budget: ${(err as Error).message}`);
    } finally {
      this.telling.delete(ctx);
      this.pump();
    }
  }

  /** A write that went out again (a retry): counted, never waited for (it holds its place already). */
  async chargeRetry(): Promise<void> {
    await this.ledger.charge(this.key).catch(() => undefined);
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
