// Where the App's writes are counted against GitHub's secondary limits (under one key for the
// whole App, or one per installation: write-budget.ts BudgetScope): in this
// process (one App process), or in Redis when Probot was given REDIS_URL (every replica takes
// from the same budget, as Probot's throttling shares its queues there). Both count the same
// way: the grants of the last hour, kept as times, tested against a minute and an hour window
// (sliding windows: GitHub does not say how its own are aligned, and a sliding one never lets
// twice the limit through across a boundary, as fixed windows would).

/** The two windows, in milliseconds (scaled in tests). */
export interface Windows {
  minuteMs: number;
  hourMs: number;
}

export interface Limits {
  perMinute: number;
  perHour: number;
}

/** Milliseconds from `now` until `n` more writes fit both windows, given the grant times (any order). */
export function waitForRoom(times: readonly number[], now: number, w: Windows, limits: Limits, n = 1): number {
  const inHour = times.filter((t) => t > now - w.hourMs).sort((a, b) => a - b);
  const inMinute = inHour.filter((t) => t > now - w.minuteMs);
  return Math.max(0, untilFree(inHour, limits.perHour, w.hourMs, n, now), untilFree(inMinute, limits.perMinute, w.minuteMs, n, now));
}

/** When the window holding `times` (ascending) has room for `n` more under `limit`. */
function untilFree(times: readonly number[], limit: number, windowMs: number, n: number, now: number): number {
  if (limit <= 0) return Infinity;
  // Grants that must leave the window before the n-th new one fits.
  const leaving = times.length + n - limit;
  if (leaving <= 0) return 0;
  if (leaving <= times.length) return times[leaving - 1]! + windowMs - now;
  // More than the window holds now (an estimate far ahead): whole windows more.
  const last = times.length ? times[times.length - 1]! + windowMs - now : 0;
  return last + windowMs * Math.ceil((leaving - times.length) / limit);
}

export interface BudgetLedger {
  /** Takes one write of `key`'s budget when `limits` allow it now (0); else the ms until one may fit. */
  take(key: string, limits: Limits): Promise<number>;
  /** Counts a write that went out once more (a retry): GitHub counts every request it is sent. */
  charge(key: string): Promise<void>;
  /** Milliseconds until `n` more writes fit (the deferral notice's estimate). */
  estimate(key: string, limits: Limits, n: number): Promise<number>;
}

/** One process's ledger. */
export class MemoryLedger implements BudgetLedger {
  private readonly grants = new Map<string, number[]>();
  constructor(
    private readonly windows: Windows,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  private times(key: string): number[] {
    const now = this.clock();
    const kept = (this.grants.get(key) ?? []).filter((t) => t > now - this.windows.hourMs);
    this.grants.set(key, kept);
    return kept;
  }

  async take(key: string, limits: Limits): Promise<number> {
    const times = this.times(key);
    const now = this.clock();
    const wait = waitForRoom(times, now, this.windows, limits);
    if (wait === 0) times.push(now);
    return wait;
  }

  async charge(key: string): Promise<void> {
    this.times(key).push(this.clock());
  }

  async estimate(key: string, limits: Limits, n: number): Promise<number> {
    return waitForRoom(this.times(key), this.clock(), this.windows, limits, n);
  }
}

/** What the Redis ledger needs of an ioredis client (the one Probot's throttling connection holds). */
export interface RedisLike {
  eval(script: string, keys: number, ...args: Array<string | number>): Promise<unknown>;
  zrangebyscore(key: string, min: string | number, max: string | number, withScores: 'WITHSCORES'): Promise<string[]>;
  /** Seconds and microseconds (strings on the wire, though ioredis types them as numbers). */
  time(): Promise<Array<string | number>>;
}

// One atomic step on Redis's own clock (replicas' clocks never compared): drop grants older than
// the hour, then grant (ZADD) when both windows have room, else answer the wait — as waitForRoom
// with n = 1. `redis.replicate_commands()` lets a script write after TIME on Redis < 5.
const TAKE = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local minuteMs, hourMs, limM, limH = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local mode, member = ARGV[5], ARGV[6]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - hourMs)
if mode == 'take' then
  local wait = 0
  local hour = redis.call('ZCARD', key)
  if hour >= limH then
    local e = redis.call('ZRANGE', key, hour - limH, hour - limH, 'WITHSCORES')
    wait = math.max(wait, tonumber(e[2]) + hourMs - now)
  end
  local minute = redis.call('ZCOUNT', key, now - minuteMs, '+inf')
  if minute >= limM then
    local e = redis.call('ZRANGEBYSCORE', key, now - minuteMs, '+inf', 'WITHSCORES', 'LIMIT', minute - limM, 1)
    wait = math.max(wait, tonumber(e[2]) + minuteMs - now)
  end
  if wait > 0 then return math.max(1, wait) end
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, hourMs)
return 0
`;

/**
 * Where a budget's grants (`app`, or an installation's) are kept in Redis: a sorted set of grant times (Redis's clock,
 * ms), one member per grant or retry, named after the ledger (process) that took it.
 */
export function redisBudgetKey(budget: string): string {
  return `baton:write-budget:${budget}`;
}

/**
 * Every replica's ledger, on the Redis Probot connects to for REDIS_URL (tests/app/budget-ledger.test.ts
 * holds it to the single-process ledger's rule against a real redis-server).
 */
export class RedisLedger implements BudgetLedger {
  private seq = 0;
  private readonly prefix = `baton:write-budget:${process.pid}:${Math.random().toString(36).slice(2)}`;
  constructor(
    private readonly redis: RedisLike,
    private readonly windows: Windows,
  ) {}

  private key(key: string): string {
    return redisBudgetKey(key);
  }

  private run(key: string, limits: Limits, mode: 'take' | 'charge'): Promise<unknown> {
    return this.redis.eval(TAKE, 1, this.key(key), this.windows.minuteMs, this.windows.hourMs, limits.perMinute, limits.perHour, mode, `${this.prefix}:${this.seq++}`);
  }

  async take(key: string, limits: Limits): Promise<number> {
    return Number(await this.run(key, limits, 'take'));
  }

  async charge(key: string): Promise<void> {
    await this.run(key, { perMinute: 0, perHour: 0 }, 'charge');
  }

  async estimate(key: string, limits: Limits, n: number): Promise<number> {
    const [s = 0, us = 0] = await this.redis.time();
    const now = Number(s) * 1000 + Math.floor(Number(us) / 1000);
    const flat = await this.redis.zrangebyscore(this.key(key), now - this.windows.hourMs, '+inf', 'WITHSCORES');
    const times = flat.filter((_, i) => i % 2 === 1).map(Number);
    return waitForRoom(times, now, this.windows, limits, n);
  }
}
