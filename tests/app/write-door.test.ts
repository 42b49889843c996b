// One installation's write door (src/app/write-budget.ts) on its own, with time compressed to a
// 40 ms "minute": the deferral notice of a waiting event and that event's own writes never cross.
// The notice rewrites the status comment from the body the event last wrote; a record write let
// through while the notice is out could land before it, and the notice would then put the older
// state back on GitHub (seen in CI: a finished run left showing "running" and "waiting" for good).
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/app/budget-ledger.ts';
import { APP_BUDGET_KEY, BudgetGroup, DEFAULT_WRITE_BUDGET, InstallationDoor, writeBudgetFromEnv, type DoorReport, type WriteBudgetOptions } from '../../src/app/write-budget.ts';
import type { LaneContext } from '../../src/app/write-lanes.ts';

const MINUTE_MS = 40;

function door(): InstallationDoor {
  const ledger = new MemoryLedger({ minuteMs: MINUTE_MS, hourMs: 1000 * MINUTE_MS });
  // One write a "minute"; the notice after 5 ms of waiting.
  return new InstallationDoor('1', ledger, { perMinute: 1, perHour: 1000, scope: 'installation', reservePercent: 0, noticeAfterMs: 5 }, 5, 1, () => undefined);
}

const event = (notice?: LaneContext['notice']): LaneContext => ({ lane: 'acme/widgets#1', cls: 'bookkeeping', since: performance.now(), dispatched: false, ...(notice ? { notice } : {}) });

describe('app: the write door and its deferral notice', () => {
  it("holds a waiting event's writes while its notice is being written, though the budget has room again", async () => {
    const d = door();
    const first = await d.enter(event());
    first.release();
    first.done();

    const order: string[] = [];
    let noticeStarted!: () => void;
    const started = new Promise<void>((r) => (noticeStarted = r));
    const ctx = event(async () => {
      order.push('notice out');
      noticeStarted();
      // The notice's request takes three of the budget's minutes: the budget has room long before it is answered.
      await new Promise((r) => setTimeout(r, 3 * MINUTE_MS));
      order.push('notice answered');
    });
    const waiting = d.enter(ctx).then((g) => {
      order.push('record write let through');
      g.release();
      g.done();
    });
    await started;
    await waiting;
    expect(order).toEqual(['notice out', 'notice answered', 'record write let through']);
  });

  it("lets other events' writes through while one event's notice is out", async () => {
    const d = door();
    const first = await d.enter(event());
    first.release();
    first.done();

    let answerNotice!: () => void;
    let noticeStarted!: () => void;
    const started = new Promise<void>((r) => (noticeStarted = r));
    const held = d.enter(event(async () => {
      noticeStarted();
      await new Promise<void>((r) => (answerNotice = r));
    }));
    await started;
    // Another event's write waits for the next minute only, not for the notice.
    const other = await d.enter({ ...event(), lane: 'acme/widgets#2' });
    other.release();
    other.done();
    answerNotice();
    (await held).release();
  });
});

describe("app: installations sharing the App's write budget", () => {
  // One write a "minute" for the whole App; the notice after 5 ms of waiting.
  const budget: WriteBudgetOptions = { perMinute: 1, perHour: 1000, scope: 'app', reservePercent: 0, noticeAfterMs: 5 };
  function doors(reports: DoorReport[] = []): [InstallationDoor, InstallationDoor] {
    const ledger = new MemoryLedger({ minuteMs: MINUTE_MS, hourMs: 1000 * MINUTE_MS });
    const group = new BudgetGroup(APP_BUDGET_KEY, ledger, budget, () => undefined);
    const make = (id: string) => new InstallationDoor(id, ledger, budget, 5, 1, () => undefined, (r) => reports.push(r), group);
    return [make('1'), make('2')];
  }
  const pass = async (d: InstallationDoor, ctx: LaneContext, order?: string[]) => {
    const g = await d.enter(ctx);
    order?.push(ctx.lane);
    g.release();
    g.done();
  };

  it("takes turns: one installation's burst does not hold back another installation's write for the whole burst", async () => {
    const [acme, globex] = doors();
    await pass(acme, event());
    const order: string[] = [];
    const burst = [1, 2, 3, 4].map(() => pass(acme, { ...event(), lane: 'acme/widgets#1' }, order));
    const other = pass(globex, { ...event(), lane: 'globex/gadgets#1' }, order);
    await Promise.all([...burst, other]);
    // The lane served least recently goes next, whichever installation it is in.
    expect(order.indexOf('globex/gadgets#1')).toBeLessThanOrEqual(1);
  });

  it("a waiting write's notice counts the other installation's writes ahead of it: the wait that follows is no longer than announced", async () => {
    const reports: DoorReport[] = [];
    const [acme, globex] = doors(reports);
    await pass(acme, event());
    const ahead = [1, 2, 3].map((i) => pass(globex, { ...event(), lane: `globex/gadgets#${i}` }));
    // The notice is a write too, through the door, from the reserve (as a command), as deferral-notice.ts writes it.
    const told = pass(acme, { ...event(() => pass(acme, { ...event(), lane: 'acme/widgets#9', cls: 'command' })), lane: 'acme/widgets#9' });
    await Promise.all([...ahead, told]);
    const noticed = reports.filter((r) => r.noticedEstimateMs !== undefined);
    expect(noticed).toHaveLength(1);
    const { noticedEstimateMs, waitedSinceNoticeMs } = noticed[0]!;
    // It waited for the other installation's three writes and its own notice, each a "minute" apart…
    expect(waitedSinceNoticeMs!).toBeGreaterThan(3 * MINUTE_MS);
    // …and was told so, within one grant's time: the timers that let each through may each run a
    // few ms late on a busy machine. (Told of its own installation's writes only, it would hear two
    // grants' time and wait five.)
    expect(waitedSinceNoticeMs!).toBeLessThanOrEqual(noticedEstimateMs! + MINUTE_MS);
  });
});

describe('app: whose writes one budget holds (BATON_WRITE_BUDGET_SCOPE)', () => {
  it("is the App's by default, per installation when asked, and a clear refusal otherwise", () => {
    expect(DEFAULT_WRITE_BUDGET.scope).toBe('app');
    expect(writeBudgetFromEnv({})).toEqual({});
    expect(writeBudgetFromEnv({ BATON_WRITE_BUDGET_SCOPE: 'installation' })).toEqual({ scope: 'installation' });
    expect(writeBudgetFromEnv({ BATON_WRITE_BUDGET_SCOPE: ' app ' })).toEqual({ scope: 'app' });
    expect(() => writeBudgetFromEnv({ BATON_WRITE_BUDGET_SCOPE: 'account' })).toThrow('BATON_WRITE_BUDGET_SCOPE must be app or installation, got "account"');
  });
});
