// What one step cost, as the status comment, the local record and `baton status` show it.
import type { StepState } from '../engine/index.ts';
import type { CostUnmetered } from '../engine/events.ts';
import { usd } from './format.ts';

/** Why a step shows no cost, in the record's words. */
const UNMETERED: Record<CostUnmetered, string> = { 'key-in-agent': "— (not metered: the CLI keeps its model key, and reports no cost)" };

/**
 * '' for a step that ran no worker (ask, approve, pull-request); "$0.12" as reported;
 * "≈ $0.12" when part of it was estimated from token counts (codex); "—" when its backend
 * reports no cost (copilot, a `run` command).
 */
export function stepCost(s: Pick<StepState, 'jobs' | 'costUsd' | 'costEstimated' | 'costUnmetered'>): string {
  if (!s.jobs.some((j) => j.attempt > 0)) return '';
  const n = s.costUsd;
  if (n === undefined || !(n > 0)) return s.costUnmetered ? UNMETERED[s.costUnmetered] : '—';
  const shown = n < 0.005 ? '<$0.01' : usd(n);
  return s.costEstimated ? `≈ ${shown}` : shown;
}
