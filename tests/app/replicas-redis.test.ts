// Replicas of the App on one Redis (REDIS_URL): two App processes, each built as `npm start`
// builds it and given the same REDIS_URL (a real redis-server of the test's own), take a burst of
// runs between them, and the installation's writes of BOTH together stay within one write budget
// — GitHub counts an installation's content-creating requests wherever they come from (docs
// "Rate limits for the REST API", secondary limits). Time is compressed through the harness's
// timeScale; GitHub's pacing (the throttle, itself kept in that Redis), the budget's windows and
// the claims between replicas all run.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisBudgetKey } from '../../src/app/budget-ledger.ts';
import { APP_BUDGET_KEY } from '../../src/app/write-budget.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const SMALL = ['name: small', 'on: { labels: ["baton:small"] }', 'steps:', '  - { id: a, run: "echo a > a.txt" }', ''].join('\n');

let h: Harness | undefined;
let redis: RedisServer | undefined;
let client: Redis | undefined;
afterEach(async () => {
  try {
    await h?.close();
  } finally {
    h = undefined;
    client?.disconnect();
    client = undefined;
    await redis?.stop();
    redis = undefined;
  }
});

/** The most of `times` (ms, any order) inside any window of `windowMs`. */
function busiest(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[from]! >= windowMs) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}

describe('app: replicas on one Redis', () => {
  it('two App processes with the same REDIS_URL share one write budget: their writes together stay within it in every sliding minute and hour, and every run finishes', async () => {
    // A compressed minute of 1.2 s: long beside the time a write spends between its grant and
    // GitHub (below), short enough that the burst needs the budget.
    const timeScale = 0.02;
    const minuteMs = 60_000 * timeScale;
    const hourMs = 3_600_000 * timeScale;
    // Half what the burst would write in its busiest minute unchecked (about 14): each process
    // alone would stay within it, both together would not.
    const budget = { perMinute: 6, perHour: 200 };
    redis = await startRedisServer();
    h = await startHarness({
      files: { '.agents/workflows/small.yml': SMALL },
      replicas: 2,
      redisUrl: redis.url,
      timeScale,
      // No reserve: every write, a run's or a command's, is held to the same limits.
      writeBudget: { ...budget, reservePercent: 0 },
      lease: { ttlMs: 10 * minuteMs },
    });
    const alice = h.as('alice');
    const numbers: number[] = [];
    for (let i = 0; i < 4; i++) numbers.push((await alice.rest.issues.create({ ...o, title: `Small ${i}`, body: '' })).data.number);
    const from = h.emu.requestLog.length;
    await Promise.all(numbers.map((n) => alice.rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:small'] })));
    await h.settle();

    for (const n of numbers) expect(await h.record(n)).toContain('— succeeded');
    // Both processes took part in the burst (the front door hands each delivery to two of them).
    for (const app of h.apps) expect(app.writes).toBeGreaterThan(10);

    const writes = h.emu.requestLog.slice(from).filter((r) => r.identity.startsWith('installation:') && r.method !== 'GET' && r.method !== 'HEAD');
    const installations = new Set(writes.map((r) => r.identity));
    expect(installations.size).toBe(1);
    const installation = [...installations][0]!.slice('installation:'.length);

    // The shared ledger, on Redis's clock: every write GitHub received was taken from it (one
    // member each, named after the process's ledger: both processes took), and its grants keep
    // within the budget in every sliding minute and hour. The compressed hour outlasts the test,
    // so none of them has left the ledger yet. The budget is the App's (its default scope).
    client = new Redis(redis.url);
    const flat = await client.zrange(redisBudgetKey(APP_BUDGET_KEY), 0, -1, 'WITHSCORES');
    const members = flat.filter((_, i) => i % 2 === 0);
    const granted = flat.filter((_, i) => i % 2 === 1).map(Number);
    expect(granted).toHaveLength(writes.length);
    expect(new Set(members.map((m) => m.replace(/:\d+$/, ''))).size).toBe(h.apps.length);
    expect(busiest(granted, minuteMs)).toBe(budget.perMinute);
    expect(busiest(granted, hourMs)).toBeLessThanOrEqual(budget.perHour);

    // GitHub's pacing of the installation's writes (a second apart, scaled) is kept there too,
    // one queue for both processes, as Probot keeps its throttle's for REDIS_URL.
    expect(await client.exists(`b_baton-write-${installation}_settings`, `b_baton-notifications-${installation}_settings`)).toBe(2);

    // What GitHub saw. A write reaches it a little after its grant: its turn in GitHub's pacing
    // (the throttle) and the event loop of this one test process, which runs both Apps, the
    // emulator and the worker jobs' runner — up to a few hundred milliseconds here (a real minute
    // hardly notices). So GitHub's view is checked over windows that much shorter than a minute.
    const arrived = writes.map((r) => Date.parse(r.at));
    // The lag measured: the i-th write to arrive came after the i-th grant (each had one first).
    const [a, g] = [[...arrived].sort((x, y) => x - y), [...granted].sort((x, y) => x - y)];
    const lagMs = Math.max(0, ...a.map((t, i) => t - g[i]!));
    const slackMs = Math.max(minuteMs / 3, lagMs);
    expect(slackMs, 'grants reached GitHub within a compressed minute').toBeLessThan(minuteMs);
    expect(busiest(arrived, minuteMs - slackMs)).toBeLessThanOrEqual(budget.perMinute);
    expect(busiest(arrived, hourMs - slackMs)).toBeLessThanOrEqual(budget.perHour);
  }, 120_000);
});
