// `budget.per-day`: caps over a workflow's runs started on one UTC day. Pure: the day is the
// one of a time the caller gives (an event's `at`), the day's starts and spending are the
// ledger the host read (hosts/github/daily-spend.ts: refs only baton writes, so nobody without
// write access can fill or empty it). Deciding and wording is here.
//
// Two pools, each held to the caps on its own: runs a person with the workflow's role asked
// for (a label, `/baton <workflow>`: strangers are refused before any budget is looked at) and
// runs an event or a schedule started (an issue or pull request opened — by anyone the
// workflow's `authors` admit, strangers included — a push, a red CI run, a cron tick). So what
// strangers' issues and pushes spend can never refuse a maintainer's command, and a
// maintainer's busy day never stops the automatic runs either. A day can thus spend up to twice
// a cap: each pool once.
import type { Budget } from '../manifest/types.ts';
import type { TriggerKind } from './roles.ts';

export type PerDay = NonNullable<Budget['perDay']>;

export const POOLS = ['asked', 'auto'] as const;
/** `asked`: a person with the workflow's role (or a bot `on.bots` lists) asked; `auto`: an event or schedule started the run. */
export type Pool = (typeof POOLS)[number];

/** The pool a start spends from: what started it, never who wrote the issue (an event's author may be anyone). */
export function poolOf(trigger: TriggerKind | undefined): Pool {
  return trigger === undefined ? 'asked' : 'auto';
}

/** How a pool is named in notes and in `/baton status`. */
const POOL_WORDS: Record<Pool, string> = { asked: 'at the request of people with its role', auto: 'by events and schedules' };

const DAY_MS = 86_400_000;

/** The UTC day of a time, as `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** When the UTC day of `at` began (ms since the epoch). */
export function utcDayStart(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** What one run that ended cost, as its record said when it ended. */
export interface Spent {
  costUsd: number;
  /** Part of it was estimated from token counts (a backend that reports none). */
  estimated: boolean;
}

/** One workflow's ledger of one UTC day, per pool. */
export interface DayLedger {
  /** The starts let through, by the start's own name (one per start, however often it is delivered). */
  starts: Record<Pool, Set<string>>;
  /** The runs started that day that have ended, by run id: what each cost. */
  spent: Record<Pool, Map<string, Spent>>;
  /** The day's note for refused automatic starts was posted. */
  noted: boolean;
}

export function emptyLedger(): DayLedger {
  return { starts: { asked: new Set(), auto: new Set() }, spent: { asked: new Map(), auto: new Map() }, noted: false };
}

/** What one pool of a workflow's day has spent so far. */
export interface DaySpend {
  runs: number;
  /** The ended runs' own totals (`budget.costUsd`), as their backends reported them. */
  costUsd: number;
  /** Part of it was estimated from token counts (a backend that reports none). */
  estimated: boolean;
}

/**
 * The day's spend of one pool: every start let through counts as a run; the money is what the
 * runs that have ended cost (a run's money is charged to the day it started, even what it
 * spends after midnight; a run still going counts once it ends — each run is held to its own
 * `max-cost-usd` meanwhile).
 */
export function spendOfDay(day: DayLedger, pool: Pool): DaySpend {
  const spend: DaySpend = { runs: day.starts[pool].size, costUsd: 0, estimated: false };
  for (const s of day.spent[pool].values()) {
    if (Number.isFinite(s.costUsd) && s.costUsd > 0) spend.costUsd += s.costUsd;
    if (s.estimated) spend.estimated = true;
  }
  return spend;
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/** Why no more runs of `pool` may start today, or null while the caps allow one more. */
export function dailyCapReached(perDay: PerDay, spend: DaySpend, pool: Pool): string | null {
  if (perDay.maxRuns !== undefined && spend.runs >= perDay.maxRuns) return `${spend.runs} of ${perDay.maxRuns} runs (\`max-runs\`) started today ${POOL_WORDS[pool]}`;
  if (perDay.maxCostUsd !== undefined && spend.costUsd >= perDay.maxCostUsd) return `today's runs ${POOL_WORDS[pool]} have spent ${usd(spend.costUsd)} of ${usd(perDay.maxCostUsd)} (\`max-cost-usd\`)`;
  return null;
}

/**
 * One line of `/baton status`: "`review-pr` today: 7 of 20 runs, $1.20 of $5.00 at the request
 * of people with its role; 2 of 20 runs, $0.40 of $5.00 by events and schedules".
 */
export function describeSpend(workflow: string, perDay: PerDay, spend: Record<Pool, DaySpend>): string {
  const one = (pool: Pool): string => {
    const s = spend[pool];
    const runs = perDay.maxRuns !== undefined ? `${s.runs} of ${perDay.maxRuns} runs` : `${s.runs} run${s.runs === 1 ? '' : 's'}`;
    const shown = `${s.estimated ? '≈ ' : ''}${usd(s.costUsd)}`;
    const cost = perDay.maxCostUsd !== undefined ? `${shown} of ${usd(perDay.maxCostUsd)}` : `${shown} spent`;
    return `${runs}, ${cost} ${POOL_WORDS[pool]}`;
  };
  return `\`${workflow}\` today: ${POOLS.map(one).join('; ')}`;
}
