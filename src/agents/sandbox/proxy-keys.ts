// Where an attempt's model credential lives: in the egress proxy (the worker's process, which the
// fenced agent cannot read) wherever the backend's CLI can be pointed at the proxy, else in the
// agent — said in the step's sandbox line, and refused in a fork run.
//
// The agent's environment is built from the job's, so the one door is the last step of building
// it (`agentEnvironment`): every variable whose value is a held key — under its own name or any
// other — holds that key's placeholder instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentBackend } from '../backends/types.ts';
import { placeholderFor, upstreamFor, type HeldKey, type ModelApi, type ModelUpstream } from './proxy-models.ts';

export interface KeyPlan {
  /** The credentials the proxy holds. */
  held: HeldKey[];
  /** The model credentials the agent can read, each with why; empty when none. */
  inAgent: string[];
}

const set = (env: NodeJS.ProcessEnv, name: string): boolean => (env[name] ?? '') !== '';

/**
 * What the proxy holds of `backend`'s credentials set in `env`, and what stays in the agent:
 * every credential the CLI cannot send through the proxy, and its stored login when no key is
 * held (the login file is then handed to the agent's home). `proxy`: the proxy serves the model
 * path for this attempt.
 */
export function planModelKeys(backend: AgentBackend, env: NodeJS.ProcessEnv, proxy: boolean): KeyPlan {
  const held: HeldKey[] = [];
  const inAgent: string[] = [];
  for (const name of [...backend.credentials, ...(backend.alternativeCredentials ?? [])]) {
    if (!set(env, name)) continue;
    const h = proxy ? backend.heldKeys?.[name] : undefined;
    if (h) held.push({ name, api: h.api, slot: h.slot, value: env[name]!, placeholder: placeholderFor(name) });
    else inAgent.push(`${name} (${proxy ? `${backend.name} cannot be pointed at the proxy with it` : 'no proxy for this attempt'})`);
  }
  if (!held.length) {
    for (const file of backend.loginFiles) if (env.HOME && existsSync(join(env.HOME, file))) inAgent.push(`the login in ~/${file}`);
  }
  return { held, inAgent };
}

/** The APIs of the held keys, each with its base URL on the proxy (`InvocationOptions.modelBaseUrls`). */
export function heldApis(plan: KeyPlan, baseUrl: (api: ModelApi) => string): Partial<Record<ModelApi, string>> {
  return Object.fromEntries(plan.held.map((k) => [k.api, baseUrl(k.api)]));
}

/** Where the proxy sends each held key's API: its host, or the gateway the job's environment names. */
export function modelUpstreams(plan: KeyPlan, env: Record<string, string | undefined>): Partial<Record<ModelApi, ModelUpstream>> {
  return Object.fromEntries(plan.held.map((k) => [k.api, upstreamFor(k.api, env)]));
}

/** `env` as the agent gets it: a held key in any value (`Bearer <key>`, a copy under another name) replaced by its placeholder. */
export function agentEnvironment(env: NodeJS.ProcessEnv, held: readonly HeldKey[]): NodeJS.ProcessEnv {
  if (!held.length) return env;
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) out[name] = value === undefined ? value : held.reduce((v, k) => v.replaceAll(k.value, k.placeholder), value);
  for (const k of held) out[k.name] = k.placeholder;
  return out;
}

/** Why a fork run does not start an agent that would hold its model credential. */
export function forkKeyRefusal(backend: AgentBackend, inAgent: readonly string[]): string {
  return (
    `a fork's pull request: ${backend.name} would hold its model credential where the agent can read it (${inAgent.join('; ')}), ` +
    'and the agent works on a stranger\'s code; the agent was not started. Give the workflow a backend whose API key the sandbox\'s proxy holds ' +
    '(claude-code, codex, gemini, opencode or aider with an API key of Anthropic, OpenAI or Gemini; docs/agents.md, "Where the model key lives"), ' +
    'or leave the credentials it cannot hold out of the `baton agent` step'
  );
}
