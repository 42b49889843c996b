// The run's budget (max-steps, max-minutes, max-cost-usd). Two questions: is the run
// already over (stop it now), and would one more dispatch go over (then don't, and
// stop). No dispatch is ever made that a limit forbids.
import type { Draft } from './draft.ts';
import type { Usage } from './events.ts';
import { effectiveMaxCost } from './raise.ts';

/**
 * Limits a run has when its manifest sets none: an agent's output must not be able to make
 * a run dispatch workers or wait without end. A manifest raises them explicitly.
 */
export const DEFAULT_MAX_STEPS = 100;
export const DEFAULT_MAX_MINUTES = 7 * 24 * 60;
/** Items one `for-each` may fan out to without `max-items` (an agent's output decides how many there are). */
export const DEFAULT_MAX_ITEMS = 20;

const defaulted = (set: boolean): string => (set ? '' : ' (the default; set `budget` in the workflow to change it)');

const usd = (n: number): string => `$${n.toFixed(2)}`;

function minutesOver(d: Draft): string | null {
  const set = d.workflow.budget.maxMinutes;
  const max = set ?? DEFAULT_MAX_MINUTES;
  const started = d.state.startedAt;
  if (started === null) return null;
  return d.now >= started + max * 60_000
    ? `budget: max-minutes ${max}${defaulted(set !== undefined)} reached (the run started ${Math.floor((d.now - started) / 60_000)} minutes ago)`
    : null;
}

/** The run has gone past a limit that no waiting can cure: stop it now. */
export function budgetExceeded(d: Draft): string | null {
  // With what `/baton retry --budget` added (raise.ts).
  const maxCost = effectiveMaxCost(d.workflow, d.state);
  if (maxCost !== undefined && d.state.budget.costUsd > maxCost) {
    return `budget: max-cost-usd ${usd(maxCost)} exceeded (${usd(d.state.budget.costUsd)} spent)`;
  }
  return minutesOver(d);
}

/** Why one more worker attempt (for `stepId`) may not be dispatched, or null when it may. */
export function dispatchBlocked(d: Draft, stepId: string): string | null {
  const maxCostUsd = effectiveMaxCost(d.workflow, d.state);
  const maxSteps = d.workflow.budget.maxSteps ?? DEFAULT_MAX_STEPS;
  if (d.state.budget.steps + 1 > maxSteps) {
    // No count here: dispatches of this same decision may still be withdrawn.
    return `budget: max-steps ${maxSteps}${defaulted(d.workflow.budget.maxSteps !== undefined)} would be exceeded by step \`${stepId}\``;
  }
  if (maxCostUsd !== undefined && d.state.budget.costUsd >= maxCostUsd) {
    return `budget: max-cost-usd ${usd(maxCostUsd)} reached (${usd(d.state.budget.costUsd)} spent)`;
  }
  return minutesOver(d);
}

/**
 * What one more attempt may spend on its model: what is left of the run's `max-cost-usd`, and
 * the figure's words for the refusal and the record — or, when less, what was left of the day's
 * `per-day.max-cost-usd` when the run started, less what the run has spent since. Null when
 * neither is set.
 */
export function costCap(d: Draft): { usd: number; what: string } | null {
  // With what `/baton retry --budget` raised it by (raise.ts).
  const max = effectiveMaxCost(d.workflow, d.state);
  const { costUsd: spent, dayCostLeftUsd: day } = d.state.budget;
  const round = (n: number): number => Math.max(0, Math.round(n * 1e6) / 1e6);
  const run = max === undefined ? null : { usd: round(max - spent), what: spent > 0 ? `what is left of the run's max-cost-usd ${usd(max)} after ${usd(spent)} spent` : `the run's max-cost-usd ${usd(max)}` };
  const today = day === undefined ? null : { usd: round(day - spent), what: `what was left of the workflow's per-day max-cost-usd when the run started (${usd(day)})${spent > 0 ? `, less the run's ${usd(spent)} since` : ''}` };
  if (run && today) return today.usd < run.usd ? today : run;
  return run ?? today;
}

/**
 * Adds a reported or estimated cost to the run's total and to the step's (from any
 * attempt, even a stale one: money spent is spent).
 */
export function addCost(d: Draft, usage: Usage | undefined, stepId: string): void {
  const costUsd = usage?.costUsd;
  if (costUsd === undefined || !Number.isFinite(costUsd) || costUsd <= 0) {
    if (usage?.costUnmetered && d.findStep(stepId)) d.setStep(stepId, { costUnmetered: usage.costUnmetered });
    return;
  }
  const estimated = usage?.costEstimated ? { costEstimated: true } : {};
  d.state.budget = { ...d.state.budget, costUsd: d.state.budget.costUsd + costUsd, ...estimated };
  const step = d.findStep(stepId);
  if (step) d.setStep(stepId, { costUsd: (step.costUsd ?? 0) + costUsd, ...estimated });
}
