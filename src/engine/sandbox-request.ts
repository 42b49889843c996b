// What one attempt asks of the sandbox (the SandboxRequest in the worker's task), from the
// manifest: the agent's list (model API, MCP servers, `network.allow`), narrowed by the
// step's `network`; `sandbox: required` from the agent or the step; the agent's limits over
// the defaults. Pure: the engine calls it for every dispatch (jobs.ts).
import { DEFAULT_LIMITS, RUN_STEP_HOSTS, agentAllowList, modelHosts } from '../manifest/network.ts';
import { covers } from '../manifest/host-patterns.ts';
import type { AgentSpec, LimitsSpec, Step, StepNetwork, Workflow } from '../manifest/types.ts';
import type { EgressPolicy, ResourceLimits, SandboxRequest } from './sandbox.ts';

/**
 * The request for an attempt of `def` (the step whose agent or command runs: the gate's `fix`
 * step in a fix round) by `agent` (the step's agent, or the fallback running in its place;
 * null for run steps). `fork`: the run reads a fork's code (RunState.fork) — the sandbox is
 * required whatever the manifest says, and the worker hands the agent no secret but its model key.
 */
export function sandboxRequest(workflow: Workflow, def: Step, agent: string | null, fork = false): SandboxRequest {
  const spec = agent === null ? undefined : workflow.agents[agent];
  const network = def.kind === 'run' || !spec ? runNetwork(def.network) : agentNetwork(spec, def.network);
  return {
    network,
    limits: limitsOf(spec?.limits),
    required: fork || spec?.sandbox === 'required' || def.sandbox === 'required',
    ...(fork && { fork: true as const }),
  };
}

function agentNetwork(spec: AgentSpec, step: StepNetwork | undefined): EgressPolicy {
  if (step === 'off') return { mode: 'off', allow: [] };
  const all = agentAllowList(spec);
  if (step === undefined || step === 'default') return { mode: 'allow', allow: all };
  // A step narrows: the model API stays (without it nothing works; `off` is the way to cut
  // it), and of its own list only what the agent allows (the validator refuses the rest; a
  // fallback agent running the step may allow less).
  return { mode: 'allow', allow: unique([...modelHosts(spec), ...step.allow.filter((p) => covers(all, p))]) };
}

function runNetwork(step: StepNetwork | undefined): EgressPolicy {
  if (step === 'off') return { mode: 'off', allow: [] };
  if (step === undefined || step === 'default') return { mode: 'allow', allow: [...RUN_STEP_HOSTS] };
  return { mode: 'allow', allow: unique(step.allow) };
}

function limitsOf(spec: LimitsSpec | undefined): ResourceLimits {
  const pick = (k: keyof LimitsSpec): number | null => (spec?.[k] !== undefined ? spec[k]! : DEFAULT_LIMITS[k]);
  return { cpuSeconds: pick('cpuSeconds'), memoryMb: pick('memoryMb'), processes: pick('processes') };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
