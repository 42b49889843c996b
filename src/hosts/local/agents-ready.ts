// Before a local run starts (and so before it asks anything): can its agents work on this
// machine? A missing CLI or key found after a person answered the questions wastes their
// answers and says it in a worker job's words; found here, it fails in a second, nothing
// started, with what to install or set. An agent whose fallback is ready is ready: the run
// hands its attempts over (engine/breaker.ts).
import { preflight, WorkerSetupError } from '../../agents/preflight.ts';
import { backendFor } from '../../agents/backends/index.ts';
import type { AgentSpec, Workflow } from '../../manifest/types.ts';

export class AgentsNotReadyError extends Error {
  override name = 'AgentsNotReadyError';
}

/** The agents the workflow's steps run (agent and review steps), in step order. */
function agentsUsed(wf: Workflow): string[] {
  const names = wf.steps.flatMap((s) => (s.kind === 'agent' || s.kind === 'review' ? [s.agent] : []));
  return [...new Set(names)].filter((n) => Object.hasOwn(wf.agents, n));
}

/** The agent and the fallbacks that take over from it, in order (a cycle is cut). */
function chainOf(wf: Workflow, name: string): string[] {
  const out: string[] = [];
  for (let at: string | undefined = name; at !== undefined && Object.hasOwn(wf.agents, at) && !out.includes(at); at = wf.agents[at]!.fallback) out.push(at);
  return out;
}

/** Why the agent cannot work here, or null. A `command` agent run by a relative path is not judged: an earlier step may write it. */
function problemOf(spec: AgentSpec, env: NodeJS.ProcessEnv, repo: string): string | null {
  const backend = backendFor(spec.uses);
  if (!backend.binary && !spec.run?.[0]?.startsWith('/') && spec.run?.[0]?.includes('/')) return null;
  try {
    preflight(backend, spec, env, repo, 'local');
    return null;
  } catch (err) {
    if (err instanceof WorkerSetupError) return err.message;
    throw err;
  }
}

/** Throws AgentsNotReadyError naming, for each agent that cannot work here (nor its fallbacks), what to do. */
export function assertAgentsReady(wf: Workflow, env: NodeJS.ProcessEnv, repo: string): void {
  const problems: string[] = [];
  for (const name of agentsUsed(wf)) {
    const chain = chainOf(wf, name);
    const found = chain.map((a) => ({ agent: a, problem: problemOf(wf.agents[a]!, env, repo) }));
    if (found.some((f) => f.problem === null)) continue;
    for (const f of found) {
      const line = `agent \`${f.agent}\`${f.agent === name ? '' : ` (the fallback of \`${name}\`)`}: ${f.problem}`;
      if (!problems.includes(line)) problems.push(line);
    }
  }
  if (problems.length) {
    throw new AgentsNotReadyError(`${wf.name} cannot run here, so nothing was started:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}
