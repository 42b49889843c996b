// Circuit breakers, one per agent of a run: when an agent's backend keeps failing before any
// work (credentials refused, quota, network, its CLI missing or crashing), its attempts go to
// the agent's `fallback` for a cooldown, then the agent is tried once again.
//
//   closed ──(THRESHOLD infrastructure failures in a row)──▶ open ──(cooldown over, next attempt)──▶ half-open
//   half-open ──(that attempt finishes)──▶ closed;  half-open ──(infrastructure failure)──▶ open again
//
// Failures of the work itself (invalid output, a timeout, a review) never count and reset
// nothing. Time is the events' `at` (Draft.now), like everything in the engine.
import type { Draft } from './draft.ts';
import { INFRASTRUCTURE_CAUSES, type InfrastructureCause, type JobRef } from './events.ts';
import type { BreakerState } from './types.ts';

/** Infrastructure failures in a row that open an agent's breaker. */
export const BREAKER_THRESHOLD = 2;
/** How long an open breaker keeps attempts away from its agent. */
export const BREAKER_COOLDOWN_MS = 10 * 60_000;

const CLOSED: BreakerState = { status: 'closed', failures: 0, cause: null, openedAt: null, until: null, probe: null, closedAt: null };

/** The agent's breaker; own keys only (an agent may be named `constructor` or `__proto__`). */
function storedBreaker(d: Draft, agent: string): BreakerState | undefined {
  const all = d.state.breakers;
  return all !== undefined && Object.hasOwn(all, agent) ? all[agent] : undefined;
}

export function breakerOf(d: Draft, agent: string): BreakerState {
  return storedBreaker(d, agent) ?? CLOSED;
}

function setBreaker(d: Draft, agent: string, next: BreakerState): void {
  d.state.breakers = { ...d.state.breakers, [agent]: next };
  // The record says when an agent is set aside and when it is back.
  d.visible = true;
}

const sameAttempt = (a: JobRef | null, b: JobRef): boolean => a !== null && a.step === b.step && a.slot === b.slot && a.attempt === b.attempt;

/** A half-open try still out: its job is running that attempt (not timed out, cancelled or retried since). */
function tryingNow(d: Draft, probe: JobRef | null): boolean {
  const job = probe === null ? undefined : d.job(probe.step, probe.slot);
  return job !== undefined && job.attempt === probe!.attempt && job.status === 'running';
}

/** The agent and the fallbacks after it, in order (a cycle, refused by the validator, ends the chain). */
function chainOf(d: Draft, agent: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = agent; at !== undefined && !chain.includes(at) && Object.hasOwn(d.workflow.agents, at); at = d.workflow.agents[at]!.fallback) {
    chain.push(at);
  }
  return chain;
}

/**
 * Who runs the next attempt of a job whose step names `agent`: the first agent of its chain
 * (itself, its fallback, the fallback's fallback…) whose breaker is closed, or whose cooldown
 * is over — that one attempt tries it again (half-open). When every agent of the chain is
 * resting, the step's own agent: attempts go on as before and the record says why they fail.
 */
export function chooseAgent(d: Draft, agent: string, ref: JobRef): string {
  for (const name of chainOf(d, agent)) {
    const b = breakerOf(d, name);
    if (b.status === 'closed') return name;
    const cooled = b.status === 'open' ? b.until !== null && d.now >= b.until : !tryingNow(d, b.probe);
    if (cooled) {
      setBreaker(d, name, { ...b, status: 'half-open', probe: { step: ref.step, slot: ref.slot, attempt: ref.attempt } });
      return name;
    }
  }
  return agent;
}

/** An attempt of `agent` finished (whatever its outputs): the backend works, its breaker closes. */
export function agentWorked(d: Draft, agent: string | null): void {
  const b = agent === null ? undefined : storedBreaker(d, agent);
  if (!b || (b.status === 'closed' && b.failures === 0)) return;
  setBreaker(d, agent!, { ...b, status: 'closed', failures: 0, until: null, probe: null, closedAt: b.status === 'closed' ? b.closedAt : d.now });
}

/**
 * An attempt of `agent` failed. An infrastructure failure counts: the THRESHOLD-th in a row,
 * or a failed half-open try, opens the breaker for a cooldown. A work failure changes nothing,
 * except that a half-open try that failed on its work lets the next attempt try again.
 * Returns whether the failure uses up one of the step's retries: an infrastructure failure of
 * an agent that has a fallback does not, unless it came while the agent was already set aside
 * (then every agent of its chain was resting, and retries bound the attempts as usual).
 */
export function agentFailed(d: Draft, agent: string | null, ref: JobRef, cause: InfrastructureCause | undefined): boolean {
  if (agent === null) return true;
  const b = breakerOf(d, agent);
  if (cause === undefined || !INFRASTRUCTURE_CAUSES.includes(cause)) {
    if (b.status === 'half-open' && sameAttempt(b.probe, ref)) setBreaker(d, agent, { ...b, probe: null });
    return true;
  }
  const failures = b.failures + 1;
  const opens = b.status === 'half-open' || (b.status === 'closed' && failures >= BREAKER_THRESHOLD);
  setBreaker(d, agent, opens ? { ...b, status: 'open', failures, cause, openedAt: d.now, until: d.now + BREAKER_COOLDOWN_MS, probe: null } : { ...b, failures, cause });
  const hasFallback = d.workflow.agents[agent]?.fallback !== undefined;
  return !hasFallback || b.status === 'open';
}
