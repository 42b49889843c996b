// `agents.<name>.fallback`: the agent that takes over while this one's backend is down. It must
// be another agent of the workflow, and following fallbacks must end somewhere (no cycle):
// the engine walks the chain when it picks who runs an attempt (engine/breaker.ts).
import { didYouMean, listOf, q } from './diagnostics.ts';
import type { Report } from './semantic.ts';
import type { Workflow } from './types.ts';

export function checkFallbacks(wf: Workflow, report: Report): void {
  const names = Object.keys(wf.agents);
  for (const [name, spec] of Object.entries(wf.agents)) {
    const to = spec.fallback;
    if (to === undefined) continue;
    const pointer = `/agents/${name}/fallback`;
    if (to === name) {
      report(pointer, `agent ${q(name)} names itself as its \`fallback\`; name another agent under \`agents\`, one with a different backend`);
    } else if (!Object.hasOwn(wf.agents, to)) {
      report(pointer, `agent ${q(name)} falls back to ${q(to)}, which is not defined under \`agents\`; agents are: ${listOf(names)}${didYouMean(to, names)}`);
    } else {
      const cycle = cycleFrom(wf, name);
      // Reported once, at the cycle's first agent in file order.
      if (cycle && names.indexOf(name) === Math.min(...cycle.map((n) => names.indexOf(n)))) {
        report(pointer, `agents ${[...cycle, name].map(q).join(' → ')} fall back to each other in a cycle; a chain of fallbacks must end at an agent without \`fallback\``);
      }
    }
  }
}

/** The agents a fallback chain from `start` visits before coming back to `start`, or undefined. */
function cycleFrom(wf: Workflow, start: string): string[] | undefined {
  const seen: string[] = [];
  for (let at: string | undefined = start; at !== undefined && Object.hasOwn(wf.agents, at); at = wf.agents[at]!.fallback) {
    if (at === start && seen.length) return seen;
    if (seen.includes(at)) return undefined; // a cycle further down, reported from its own agents
    seen.push(at);
  }
  return undefined;
}
