// `budget.per-day`: caps over a workflow's runs started on one UTC day. Pure: the day is the
// one of a time the caller gives (an event's `at`), the runs are the records the host read.
// Counting them (from GitHub, so that every replica and Actions-only job agrees) is the
// host's business (hosts/github/daily-spend.ts); deciding and wording is here.
import type { Budget } from '../manifest/types.ts';
import type { RunState } from './types.ts';

export type PerDay = NonNullable<Budget['perDay']>;

const DAY_MS = 86_400_000;

/** The UTC day of a time, as `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** When the UTC day of `at` began (ms since the epoch). */
export function utcDayStart(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** What the runs of one workflow started on one UTC day have spent so far. */
export interface DaySpend {
  runs: number;
  /** The runs' own totals (`budget.costUsd`), as their backends reported them. */
  costUsd: number;
  /** Part of it was estimated from token counts (a backend that reports none). */
  estimated: boolean;
}

/**
 * The day's spend of `workflow`: every run whose `startedAt` falls on the UTC day of `at`,
 * each counted once (a run's money is charged to the day it started, even what it spends
 * after midnight).
 */
export function spendOfDay(states: Iterable<RunState>, workflow: string, at: number): DaySpend {
  const start = utcDayStart(at);
  const spend: DaySpend = { runs: 0, costUsd: 0, estimated: false };
  const seen = new Set<string>();
  for (const s of states) {
    if (s.workflow !== workflow || s.startedAt === null || s.startedAt < start || s.startedAt >= start + DAY_MS || seen.has(s.runId)) continue;
    seen.add(s.runId);
    spend.runs++;
    const cost = s.budget.costUsd;
    if (Number.isFinite(cost) && cost > 0) spend.costUsd += cost;
    if (s.budget.costEstimated) spend.estimated = true;
  }
  return spend;
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/** Why no more runs may start today, or null while the caps allow one more. */
export function dailyCapReached(perDay: PerDay, spend: DaySpend): string | null {
  if (perDay.maxRuns !== undefined && spend.runs >= perDay.maxRuns) return `${spend.runs} of ${perDay.maxRuns} runs (\`max-runs\`) started today`;
  if (perDay.maxCostUsd !== undefined && spend.costUsd >= perDay.maxCostUsd) return `today's runs have spent ${usd(spend.costUsd)} of ${usd(perDay.maxCostUsd)} (\`max-cost-usd\`)`;
  return null;
}

/** One line of `/baton status`: "review-pr today: 7 of 20 runs, $1.20 of $5.00". */
export function describeSpend(workflow: string, perDay: PerDay, spend: DaySpend): string {
  const runs = perDay.maxRuns !== undefined ? `${spend.runs} of ${perDay.maxRuns} runs` : `${spend.runs} run${spend.runs === 1 ? '' : 's'}`;
  const shown = `${spend.estimated ? '≈ ' : ''}${usd(spend.costUsd)}`;
  const cost = perDay.maxCostUsd !== undefined ? `${shown} of ${usd(perDay.maxCostUsd)}` : `${shown} spent`;
  return `\`${workflow}\` today: ${runs}, ${cost}`;
}
