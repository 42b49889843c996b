// Raised limits: `/baton retry <step> --budget +$N / --minutes +N / --turns +N` (and
// `baton resume`, MCP's `baton_resume`) continue a step an agent's limit stopped with more of
// that limit. A raise holds only within the workflow's `budget.raise-to` (and a policy's cap
// over it: `budget.per-day.max-cost-usd`); a limit with no cap there is never raised. What is
// raised stays in the state (BudgetUsed.raisedUsd, StepState.raised), so every later attempt
// and every host reads the same limits.
import type { AgentSpec, Step, Workflow } from '../manifest/types.ts';
import type { Draft } from './draft.ts';
import type { LimitRaise, RunState, StepState, StopLimit } from './types.ts';

const usd = (n: number): string => `$${Number(n.toFixed(2))}`;

/** The run's cost limit with what retries added: the manifest's `max-cost-usd` plus every raise. */
export function effectiveMaxCost(workflow: Workflow, state: RunState): number | undefined {
  const set = workflow.budget.maxCostUsd;
  return set === undefined ? undefined : set + (state.budget.raisedUsd ?? 0);
}

/** The agent or command a step's own attempts run: the agent's spec, or null for a run step. */
function agentOf(workflow: Workflow, step: Step): AgentSpec | null {
  return step.kind === 'agent' ? (workflow.agents[step.agent] ?? null) : null;
}

/** An attempt's time limit in minutes (the step's, else its agent's) with the step's raises; null: none. */
export function attemptMinutes(def: Step, backend: AgentSpec | null, st: StepState | undefined): number | null {
  const set = def.timeoutMinutes ?? backend?.timeoutMinutes ?? null;
  return set === null ? null : set + (st?.raised?.minutes ?? 0);
}

/** The agent's spec for one of the step's attempts, its `max-turns` raised as retries asked. */
export function withRaisedTurns(backend: AgentSpec | null, st: StepState | undefined): AgentSpec | null {
  const more = st?.raised?.turns ?? 0;
  if (!backend || more === 0 || backend.maxTurns === undefined) return backend;
  return { ...backend, maxTurns: backend.maxTurns + more };
}

/** What each limit is called where people raise it. */
export const RAISE_FLAG: Record<StopLimit, string> = { cost: '--budget', time: '--minutes', turns: '--turns' };

/**
 * Why the raise may not be made, naming the cap it would pass (or the limit that is not there),
 * or null when every part of it is within the caps. Nothing is raised unless all of it may be.
 */
export function raiseRefusal(d: Draft, stepId: string, raise: LimitRaise): string | null {
  const { workflow, state } = d;
  const step = d.stepDef(stepId);
  if (!step) return null; // the retry itself answers a step that does not exist
  const caps = workflow.budget.raiseTo ?? {};
  // Hosts parse what people typed (comment-command.ts, the CLI, MCP); a figure that is no raise never gets here, and is refused if it does.
  for (const [name, value] of Object.entries(raise)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return `\`${name}\` must be a positive number`;
  }
  const problems: string[] = [];
  if (raise.costUsd !== undefined) {
    const now = effectiveMaxCost(workflow, state);
    const to = (now ?? 0) + raise.costUsd;
    if (now === undefined) problems.push('`--budget`: the workflow sets no `budget.max-cost-usd`, so there is no cost limit to raise');
    else if (caps.costUsd === undefined) problems.push(`\`--budget\`: the workflow sets no \`budget.raise-to.cost-usd\`, so its cost limit stays at ${usd(now)}`);
    else if (to > caps.costUsd + 1e-9) problems.push(`\`--budget +${usd(raise.costUsd)}\` would raise the run's cost limit to ${usd(to)}, past the workflow's cap \`budget.raise-to.cost-usd\` (${usd(caps.costUsd)})`);
    else if (workflow.budget.perDay?.maxCostUsd !== undefined && to > workflow.budget.perDay.maxCostUsd + 1e-9) {
      problems.push(`\`--budget +${usd(raise.costUsd)}\` would raise the run's cost limit to ${usd(to)}, past the day's cap \`budget.per-day.max-cost-usd\` (${usd(workflow.budget.perDay.maxCostUsd)})`);
    }
  }
  const worker = step.kind === 'agent' || step.kind === 'run';
  const st = d.findStep(stepId);
  if (raise.minutes !== undefined) {
    const now = worker ? attemptMinutes(step, agentOf(workflow, step), st) : null;
    const to = (now ?? 0) + raise.minutes;
    if (!worker) problems.push(`\`--minutes\`: step \`${stepId}\` is a ${step.kind} step; only agent and run steps have an attempt time limit to raise`);
    else if (now === null) problems.push(`\`--minutes\`: step \`${stepId}\` has no time limit (\`timeout-minutes\`) to raise`);
    else if (caps.minutes === undefined) problems.push(`\`--minutes\`: the workflow sets no \`budget.raise-to.minutes\`, so step \`${stepId}\`'s time limit stays at ${now} minutes`);
    else if (to > caps.minutes) problems.push(`\`--minutes +${raise.minutes}\` would raise step \`${stepId}\`'s time limit to ${to} minutes, past the workflow's cap \`budget.raise-to.minutes\` (${caps.minutes})`);
  }
  if (raise.turns !== undefined) {
    const agent = agentOf(workflow, step);
    const now = agent?.maxTurns === undefined ? null : agent.maxTurns + (st?.raised?.turns ?? 0);
    const to = (now ?? 0) + raise.turns;
    if (step.kind !== 'agent') problems.push(`\`--turns\`: step \`${stepId}\` is a ${step.kind} step; only an agent step has a turn limit to raise`);
    else if (now === null) problems.push(`\`--turns\`: agent \`${step.agent}\` has no \`max-turns\` to raise`);
    else if (caps.turns === undefined) problems.push(`\`--turns\`: the workflow sets no \`budget.raise-to.turns\`, so step \`${stepId}\`'s turn limit stays at ${now}`);
    else if (to > caps.turns) problems.push(`\`--turns +${raise.turns}\` would raise step \`${stepId}\`'s turn limit to ${to}, past the workflow's cap \`budget.raise-to.turns\` (${caps.turns})`);
  }
  return problems.length ? problems.join('; ') : null;
}

/** Records the raise (checked by raiseRefusal): the run's cost limit, the step's minutes and turns. */
export function applyRaise(d: Draft, stepId: string, raise: LimitRaise): void {
  if (raise.costUsd !== undefined) d.state.budget = { ...d.state.budget, raisedUsd: (d.state.budget.raisedUsd ?? 0) + raise.costUsd };
  if (raise.minutes === undefined && raise.turns === undefined) return;
  const was = d.step(stepId).raised ?? {};
  d.setStep(stepId, {
    raised: {
      ...was,
      ...(raise.minutes !== undefined && { minutes: (was.minutes ?? 0) + raise.minutes }),
      ...(raise.turns !== undefined && { turns: (was.turns ?? 0) + raise.turns }),
    },
  });
}

/** The raise in the words people typed it, for replies and the record (`--budget +$2 --turns +20`). */
export function describeRaise(raise: LimitRaise): string {
  const parts: string[] = [];
  if (raise.costUsd !== undefined) parts.push(`--budget +${usd(raise.costUsd)}`);
  if (raise.minutes !== undefined) parts.push(`--minutes +${raise.minutes}`);
  if (raise.turns !== undefined) parts.push(`--turns +${raise.turns}`);
  return parts.join(' ');
}
