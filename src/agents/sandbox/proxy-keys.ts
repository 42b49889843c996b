// Where an attempt's model credential lives: in the egress proxy (the worker's process, which the
// fenced agent cannot read) wherever the backend's CLI can be pointed at the proxy, else in the
// agent — said in the step's sandbox line, and refused in a fork run.
//
// The agent's environment is built from the job's, so the one door is the last step of building
// it (`agentEnvironment`): every variable whose value is a held key — under its own name or any
// other — holds that key's placeholder instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BACKEND_IMPLS } from '../backends/index.ts';
import type { AgentBackend } from '../backends/types.ts';
import { placeholderFor, upstreamFor, type HeldKey, type ModelApi, type ModelUpstream } from './proxy-models.ts';

export interface KeyPlan {
  /** The credentials the proxy holds. */
  held: HeldKey[];
  /** The model credentials the agent can read, each with why; empty when none. */
  inAgent: string[];
  /** Other backends' model keys set in the job's environment: not the agent's, left out of its environment. */
  others: string[];
}

/**
 * Every backend's model API keys and tokens (not its switches, not GitHub tokens, which are the
 * job's own and guarded as such): the worker workflow passes the keys of every backend the
 * manifest uses, and an agent gets none but its own — and those as placeholders where it can.
 */
export const MODEL_KEY_NAMES: ReadonlySet<string> = new Set(
  Object.values(BACKEND_IMPLS)
    .flatMap((b) => [...b.credentials, ...(b.alternativeCredentials ?? [])])
    .filter((n) => /(_API_KEY|_AUTH_TOKEN|_OAUTH_TOKEN)$/.test(n)),
);

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
  const own = [...backend.credentials, ...(backend.alternativeCredentials ?? [])];
  const others = [...MODEL_KEY_NAMES].filter((n) => set(env, n) && !own.includes(n));
  for (const name of own) {
    if (!set(env, name)) continue;
    const h = proxy ? backend.heldKeys?.[name] : undefined;
    // A value that is no header value (a line break in it) is not sent by the proxy: nor would the CLI send it.
    if (h && !/^[\x21-\x7e]+$/.test(env[name]!)) inAgent.push(`${name} (not a value an HTTP header can carry)`);
    else if (h) held.push({ name, api: h.api, slot: h.slot, value: env[name]!, placeholder: placeholderFor(name) });
    else inAgent.push(`${name} (${proxy ? `${backend.name} cannot be pointed at the proxy with it` : 'no proxy for this attempt'})`);
  }
  if (!held.length) {
    for (const file of backend.loginFiles) if (env.HOME && existsSync(join(env.HOME, file))) inAgent.push(`the login in ~/${file}`);
  }
  return { held, inAgent, others };
}

/** The APIs of the held keys, each with its base URL on the proxy (`InvocationOptions.modelBaseUrls`). */
export function heldApis(plan: KeyPlan, baseUrl: (api: ModelApi) => string): Partial<Record<ModelApi, string>> {
  return Object.fromEntries(plan.held.map((k) => [k.api, baseUrl(k.api)]));
}

/** Where the proxy sends each held key's API: its host, or the gateway the job's environment names. */
export function modelUpstreams(plan: KeyPlan, env: Record<string, string | undefined>): Partial<Record<ModelApi, ModelUpstream>> {
  return Object.fromEntries(plan.held.map((k) => [k.api, upstreamFor(k.api, env)]));
}

/** What the agent's environment must not carry: the held keys (each for its placeholder) and the other backends' keys (left out). */
export interface KeyScrub {
  held: readonly HeldKey[];
  /** `others` of the plan, with their values in the job's environment. */
  dropped: readonly { name: string; value: string }[];
}

/** The scrub of a plan over the job's environment. */
export function keyScrub(plan: KeyPlan, env: NodeJS.ProcessEnv): KeyScrub {
  return { held: plan.held, dropped: plan.others.map((name) => ({ name, value: env[name]! })) };
}

/**
 * `env` as the agent gets it: a held key in any value (`Bearer <key>`, a copy under another name)
 * replaced by its placeholder; another backend's key gone, and its value wherever it appears.
 */
export function agentEnvironment(env: NodeJS.ProcessEnv, scrub: KeyScrub): NodeJS.ProcessEnv {
  if (!scrub.held.length && !scrub.dropped.length) return env;
  const swaps: [string, string][] = [...scrub.held.map((k): [string, string] => [k.value, k.placeholder]), ...scrub.dropped.map((d): [string, string] => [d.value, '***'])].filter(([v]) => v.length >= 8);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) out[name] = value === undefined ? value : swaps.reduce((v, [from, to]) => v.replaceAll(from, to), value);
  for (const d of scrub.dropped) delete out[d.name];
  for (const k of scrub.held) out[k.name] = k.placeholder;
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
