// What the record says about agents whose backend kept failing before any work (the engine's
// circuit breakers, engine/breaker.ts): which agent was set aside, why, who stands in for it
// and until when — and when it worked again. Times are UTC, from the events' own clock.
import { BREAKER_THRESHOLD, type BreakerState, type InfrastructureCause, type RunState } from '../engine/index.ts';
import type { Workflow } from '../manifest/types.ts';

const CAUSE_WORDS: Record<InfrastructureCause, string> = {
  authentication: 'authentication',
  quota: 'quota or rate limits',
  network: 'the network',
  unavailable: 'its service being unavailable',
  'cli-missing': 'its CLI missing',
  'cli-crashed': 'its CLI crashing before any work',
};

/** 12:40 UTC */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

function times(n: number): string {
  return n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`;
}

/** `coder` (claude-code) */
function named(workflow: Workflow, agent: string): string {
  const uses = workflow.agents[agent]?.uses;
  return uses && uses !== agent ? `\`${agent}\` (${uses})` : `\`${agent}\``;
}

/** One line per agent whose breaker ever left `closed` in this run; empty when none did. */
export function breakerLines(state: RunState, workflow: Workflow): string[] {
  const lines: string[] = [];
  for (const [agent, b] of Object.entries(state.breakers ?? {})) {
    const line = breakerLine(state, workflow, agent, b);
    if (line) lines.push(`- ${line}`);
  }
  return lines;
}

function breakerLine(state: RunState, workflow: Workflow, agent: string, b: BreakerState): string | undefined {
  const who = named(workflow, agent);
  const why = b.cause ? CAUSE_WORDS[b.cause] : 'infrastructure';
  const fallback = workflow.agents[agent]?.fallback;
  if (b.status === 'open' && b.until !== null) {
    const failed = `${who} failed ${times(Math.max(b.failures, BREAKER_THRESHOLD))} on ${why}`;
    if (state.status !== 'running') return `${failed}; it was set aside${fallback ? ` for ${named(workflow, fallback)}` : ''} until ${clock(b.until)}`;
    if (state.clock >= b.until) return `${failed}; its cooldown ended at ${clock(b.until)}: the next attempt tries it again`;
    if (fallback) return `${failed}; using ${named(workflow, fallback)} as its fallback until ${clock(b.until)}`;
    return `${failed}; set aside until ${clock(b.until)}, but it has no \`fallback\`, so its attempts go on and may fail the same way`;
  }
  if (b.status === 'half-open') return `${who} failed on ${why} earlier; its cooldown is over and an attempt is trying it again`;
  if (b.closedAt !== null) return `${who} works again since ${clock(b.closedAt)} (it had failed on ${why})`;
  return undefined;
}
