// The write budget's ledgers (src/app/budget-ledger.ts): one process's, and the one replicas share
// in Redis (REDIS_URL) — here against a real redis-server — count the same way: a minute and an
// hour window sliding over the grants, room for a person's command after the rest stopped short
// of the reserve, retries counted, and the wait estimated. The shared one is one budget for every
// client that reaches it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLedger, RedisLedger, type BudgetLedger, type Limits, type Windows } from '../../src/app/budget-ledger.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

// A compressed minute and hour (the App scales them by its timeScale the same way).
const windows: Windows = { minuteMs: 500, hourMs: 2000 };
const runs: Limits = { perMinute: 3, perHour: 5 };
/** What a person's command may use: the whole budget (the door keeps the rest short of it). */
const command: Limits = { perMinute: 4, perHour: 6 };

let redis: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

/** A connection of its own (as each replica has), connected before the test's clock matters. */
async function client(): Promise<Redis> {
  const c = new Redis(redis.url);
  clients.push(c);
  await c.ping();
  return c;
}

let seq = 0;
const ledgers: Array<[string, () => Promise<{ a: BudgetLedger; b: BudgetLedger; key: string }>]> = [
  ['one process (MemoryLedger)', async () => {
    const one = new MemoryLedger(windows);
    return { a: one, b: one, key: `memory-${seq++}` };
  }],
  ['replicas in Redis (RedisLedger), each with its own connection', async () => ({ a: new RedisLedger(await client(), windows), b: new RedisLedger(await client(), windows), key: `redis-${seq++}` })],
];

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(ledgers)('the write budget ledger: %s', (_name, make) => {
  it("grants a minute's writes, then answers the wait until the oldest leaves the minute; a person's command still fits the reserve", async () => {
    const { a, b, key } = await make();
    expect([await a.take(key, runs), await b.take(key, runs), await a.take(key, runs)]).toEqual([0, 0, 0]);
    // Spent for runs, on either replica.
    const waitA = await a.take(key, runs);
    const waitB = await b.take(key, runs);
    for (const w of [waitA, waitB]) {
      expect(w).toBeGreaterThan(0);
      expect(w).toBeLessThanOrEqual(windows.minuteMs);
    }
    // The reserve: the command's higher limit still has room, once; then it waits too.
    expect(await b.take(key, command)).toBe(0);
    expect(await a.take(key, command)).toBeGreaterThan(0);
    // Once the first grants left the minute, runs write again.
    await wait(Math.max(waitA, waitB) + 5);
    expect(await a.take(key, runs)).toBe(0);
  });

  it("stops at the hour's limit after the minutes had room, and waits for the hour", async () => {
    const { a, b, key } = await make();
    for (let i = 0; i < 3; i++) expect(await (i % 2 ? a : b).take(key, runs)).toBe(0);
    const blocked = await a.take(key, runs);
    await wait(blocked + 5);
    expect(await b.take(key, runs)).toBe(0);
    expect(await a.take(key, runs)).toBe(0);
    // Five in the hour: the next waits for the hour's oldest grant, longer than any minute.
    const hourWait = await b.take(key, runs);
    expect(hourWait).toBeGreaterThan(windows.minuteMs);
    expect(hourWait).toBeLessThanOrEqual(windows.hourMs);
    expect(await a.estimate(key, runs, 1)).toBeGreaterThan(windows.minuteMs);
  });

  it('counts retries (charge) against the budget and estimates the wait for n more writes', async () => {
    const { a, b, key } = await make();
    expect(await a.estimate(key, runs, 1)).toBe(0);
    expect(await a.take(key, runs)).toBe(0);
    await b.charge(key);
    await a.charge(key);
    // Three in the minute, one of them taken: runs are out of room, on every replica.
    expect(await b.take(key, runs)).toBeGreaterThan(0);
    // Five more writes: the minute's three leave (one minute), and the hour has room for two more
    // after them, so the last two wait for the hour's first grants to leave it.
    const five = await b.estimate(key, runs, 5);
    expect(five).toBeGreaterThan(windows.minuteMs);
    expect(five).toBeLessThanOrEqual(windows.hourMs + windows.minuteMs);
    expect(await b.estimate(key, runs, 1)).toBeLessThanOrEqual(windows.minuteMs);
  });
});
