// `budget.per-day`, the pure part: the UTC day of an event's time, the pool a start spends
// from, one pool's spend from the day's ledger, whether a cap is reached, and the line
// `/baton status` shows.
import { describe, expect, it } from 'vitest';
import { dailyCapReached, describeSpend, emptyLedger, poolOf, spendOfDay, utcDay } from '../../src/engine/daily-budget.ts';

const MIDNIGHT = Date.parse('2025-03-04T00:00:00Z');
const none = { runs: 0, costUsd: 0, estimated: false };

describe('budget.per-day', () => {
  it('spends a person’s start from the asked pool and an event’s or schedule’s from the automatic one', () => {
    expect(utcDay(MIDNIGHT + 5)).toBe('2025-03-04');
    expect(poolOf(undefined)).toBe('asked');
    expect(poolOf('issues')).toBe('auto');
    expect(poolOf('pull_request')).toBe('auto');
    expect(poolOf('schedule')).toBe('auto');
  });

  it("counts one pool's starts and the money of its runs that ended, apart from the other pool's", () => {
    const day = emptyLedger();
    day.starts.auto.add('5-aa').add('6-bb').add('7-cc');
    day.starts.asked.add('9-dd');
    day.spent.auto.set('triage-5-1', { costUsd: 0.5, estimated: false });
    day.spent.auto.set('triage-6-1', { costUsd: 0.7, estimated: true });
    day.spent.asked.set('triage-9-1', { costUsd: 9, estimated: false });
    expect(spendOfDay(day, 'auto')).toEqual({ runs: 3, costUsd: 1.2, estimated: true });
    expect(spendOfDay(day, 'asked')).toEqual({ runs: 1, costUsd: 9, estimated: false });
  });

  it('is reached at max-runs runs of the pool, or once the pool has spent max-cost-usd', () => {
    expect(dailyCapReached({ maxRuns: 2 }, { runs: 1, costUsd: 100, estimated: false }, 'auto')).toBeNull();
    expect(dailyCapReached({ maxRuns: 2 }, { runs: 2, costUsd: 0, estimated: false }, 'auto')).toBe('2 of 2 runs (`max-runs`) started today by events and schedules');
    expect(dailyCapReached({ maxRuns: 2 }, { runs: 2, costUsd: 0, estimated: false }, 'asked')).toBe('2 of 2 runs (`max-runs`) started today at the request of people with its role');
    expect(dailyCapReached({ maxCostUsd: 5 }, { runs: 9, costUsd: 4.99, estimated: false }, 'auto')).toBeNull();
    expect(dailyCapReached({ maxCostUsd: 5 }, { runs: 9, costUsd: 5, estimated: false }, 'auto')).toBe("today's runs by events and schedules have spent $5.00 of $5.00 (`max-cost-usd`)");
  });

  it("reads in /baton status as each pool's runs and money against the caps set", () => {
    expect(describeSpend('review-pr', { maxRuns: 20, maxCostUsd: 5 }, { asked: { runs: 7, costUsd: 1.2, estimated: false }, auto: none })).toBe(
      '`review-pr` today: 7 of 20 runs, $1.20 of $5.00 at the request of people with its role; 0 of 20 runs, $0.00 of $5.00 by events and schedules',
    );
    expect(describeSpend('review-pr', { maxCostUsd: 5 }, { asked: none, auto: { runs: 1, costUsd: 0.7, estimated: true } })).toBe(
      '`review-pr` today: 0 runs, $0.00 of $5.00 at the request of people with its role; 1 run, ≈ $0.70 of $5.00 by events and schedules',
    );
    expect(describeSpend('review-pr', { maxRuns: 3 }, { asked: none, auto: none })).toBe('`review-pr` today: 0 of 3 runs, $0.00 spent at the request of people with its role; 0 of 3 runs, $0.00 spent by events and schedules');
  });
});
