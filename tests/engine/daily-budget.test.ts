// `budget.per-day`, the pure part: the UTC day of an event's time, the day's spend of one
// workflow from run states, whether a cap is reached, and the line `/baton status` shows.
import { describe, expect, it } from 'vitest';
import { dailyCapReached, describeSpend, spendOfDay, utcDay } from '../../src/engine/daily-budget.ts';
import { emptyState, type RunState } from '../../src/engine/index.ts';

const MIDNIGHT = Date.parse('2025-03-04T00:00:00Z');
const run = (runId: string, workflow: string, startedAt: number | null, costUsd: number, costEstimated?: true): RunState => ({ ...emptyState(), runId, workflow, startedAt, budget: { steps: 1, costUsd, ...(costEstimated ? { costEstimated } : {}) } });

describe('budget.per-day', () => {
  it('counts the runs of one workflow started on the UTC day of the time given, each once', () => {
    const states = [
      run('review-1-1', 'review', MIDNIGHT - 1, 5), // the day before: not today's, whatever it spends today
      run('review-2-1', 'review', MIDNIGHT, 0.5),
      run('review-2-1', 'review', MIDNIGHT, 0.5), // listed twice: once
      run('review-3-1', 'review', MIDNIGHT + 86_399_999, 0.7, true),
      run('review-4-1', 'review', MIDNIGHT + 86_400_000, 3), // the next day
      run('fix-1-1', 'fix', MIDNIGHT + 1, 9), // another workflow
      run('review-5-1', 'review', null, 0), // never started
    ];
    expect(utcDay(MIDNIGHT + 5)).toBe('2025-03-04');
    expect(spendOfDay(states, 'review', MIDNIGHT + 12 * 3_600_000)).toEqual({ runs: 2, costUsd: 1.2, estimated: true });
  });

  it('is reached at max-runs runs, or once the day has spent max-cost-usd', () => {
    expect(dailyCapReached({ maxRuns: 2 }, { runs: 1, costUsd: 100, estimated: false })).toBeNull();
    expect(dailyCapReached({ maxRuns: 2 }, { runs: 2, costUsd: 0, estimated: false })).toBe('2 of 2 runs (`max-runs`) started today');
    expect(dailyCapReached({ maxCostUsd: 5 }, { runs: 9, costUsd: 4.99, estimated: false })).toBeNull();
    expect(dailyCapReached({ maxCostUsd: 5 }, { runs: 9, costUsd: 5, estimated: false })).toBe("today's runs have spent $5.00 of $5.00 (`max-cost-usd`)");
  });

  it("reads in /baton status as the day's runs and money against the caps set", () => {
    expect(describeSpend('review-pr', { maxRuns: 20, maxCostUsd: 5 }, { runs: 7, costUsd: 1.2, estimated: false })).toBe('`review-pr` today: 7 of 20 runs, $1.20 of $5.00');
    expect(describeSpend('review-pr', { maxCostUsd: 5 }, { runs: 1, costUsd: 0.7, estimated: true })).toBe('`review-pr` today: 1 run, ≈ $0.70 of $5.00');
    expect(describeSpend('review-pr', { maxRuns: 3 }, { runs: 0, costUsd: 0, estimated: false })).toBe('`review-pr` today: 0 of 3 runs, $0.00 spent');
  });
});
