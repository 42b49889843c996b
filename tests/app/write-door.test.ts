// One installation's write door (src/app/write-budget.ts) on its own, with time compressed to a
// 40 ms "minute": the deferral notice of a waiting event and that event's own writes never cross.
// The notice rewrites the status comment from the body the event last wrote; a record write let
// through while the notice is out could land before it, and the notice would then put the older
// state back on GitHub (seen in CI: a finished run left showing "running" and "waiting" for good).
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/app/budget-ledger.ts';
import { InstallationDoor } from '../../src/app/write-budget.ts';
import type { LaneContext } from '../../src/app/write-lanes.ts';

const MINUTE_MS = 40;

function door(): InstallationDoor {
  const ledger = new MemoryLedger({ minuteMs: MINUTE_MS, hourMs: 1000 * MINUTE_MS });
  // One write a "minute"; the notice after 5 ms of waiting.
  return new InstallationDoor('1', ledger, { perMinute: 1, perHour: 1000, reservePercent: 0, noticeAfterMs: 5 }, 5, 1, () => undefined);
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
