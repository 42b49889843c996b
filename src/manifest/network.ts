// What an agent may reach in the sandbox, from the manifest: its backend's model API (by
// backend, model and the credential switches in its `env`), its MCP servers' hosts, and its
// `network.allow`. The data lives here, beside the manifest's other per-backend facts (as
// NO_MCP does), because the engine resolves it for each attempt and imports nothing from the
// agents. Sources for every host are in docs/agents.md ("Network").
import { q } from './diagnostics.ts';
import { covers, hostPatternError, parseHostPattern, patternForUrl } from './host-patterns.ts';
import type { Report } from './semantic.ts';
import type { AgentSpec, Backend, LimitsSpec, McpServer, Step, Workflow } from './types.ts';

/** Model API hosts of the providers the CLIs reach with an API key. */
export const PROVIDER_HOSTS = {
  anthropic: ['api.anthropic.com'],
  openai: ['api.openai.com'],
  google: ['generativelanguage.googleapis.com'],
  deepseek: ['api.deepseek.com'],
  openrouter: ['openrouter.ai'],
  // Copilot's API hosts (api.githubcopilot.com, api.individual.githubcopilot.com …) and its token/entitlement endpoint.
  copilot: ['api.github.com', '*.githubcopilot.com'],
} as const satisfies Record<string, readonly string[]>;
export type Provider = keyof typeof PROVIDER_HOSTS;

/** The providers each backend reaches when its model does not say (aider and opencode: every one its keys may select). */
export const BACKEND_PROVIDERS: Record<Backend, readonly Provider[]> = {
  'claude-code': ['anthropic'],
  codex: ['openai'],
  gemini: ['google'],
  copilot: ['copilot'],
  aider: ['anthropic', 'openai', 'google', 'deepseek', 'openrouter'],
  opencode: ['anthropic', 'openai', 'google', 'openrouter', 'copilot'],
  // A program of the manifest's: baton cannot know what it calls, so nothing unless allowed.
  command: [],
};

/** opencode's `provider/model` and aider's (litellm's) `provider/model` prefixes. */
const MODEL_PREFIXES: Record<string, Provider> = {
  anthropic: 'anthropic',
  openai: 'openai',
  google: 'google',
  gemini: 'google',
  deepseek: 'deepseek',
  openrouter: 'openrouter',
  'github-copilot': 'copilot',
};

/** aider's model names and aliases without a prefix (aider docs, "Model aliases"). */
function aiderModelProvider(model: string): Provider | undefined {
  const m = model.toLowerCase();
  if (/^(sonnet|opus|haiku|claude)/.test(m)) return 'anthropic';
  if (/^(gpt|4o|o1|o3|o4|chatgpt)/.test(m)) return 'openai';
  if (/^(gemini|flash)/.test(m)) return 'google';
  if (/^(deepseek|r1)/.test(m)) return 'deepseek';
  return undefined;
}

/** The providers an agent's model selects; null when the model names one baton has no hosts for. */
export function modelProviders(spec: Pick<AgentSpec, 'uses' | 'model'>): readonly Provider[] | null {
  if ((spec.uses !== 'aider' && spec.uses !== 'opencode') || spec.model === undefined) return BACKEND_PROVIDERS[spec.uses];
  const slash = spec.model.indexOf('/');
  if (slash > 0) {
    const p = MODEL_PREFIXES[spec.model.slice(0, slash).toLowerCase()];
    return p ? [p] : null;
  }
  if (spec.uses === 'opencode') return null;
  const p = aiderModelProvider(spec.model);
  return p ? [p] : BACKEND_PROVIDERS.aider;
}

const on = (v: string | undefined): boolean => v !== undefined && /^(1|true|yes)$/i.test(v.trim());
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** `<region>-aiplatform.googleapis.com`, or the global endpoint (Vertex AI docs, "Locations"). */
function vertexHost(region: string | undefined): string[] {
  if (region === 'global') return ['aiplatform.googleapis.com'];
  return region !== undefined && /^[a-z]+-[a-z]+\d+$/.test(region) ? [`${region}-aiplatform.googleapis.com`] : [];
}

const urlHost = (url: string | undefined): string[] => {
  const p = url === undefined ? null : patternForUrl(url);
  return p === null ? [] : [p];
};

/**
 * Endpoints that credential switches and base URLs select, from an environment (an agent's
 * `env` in the manifest; the worker may apply it to its own). Google's token endpoint comes
 * with Vertex AI and Google login: service account and workload identity credentials are
 * exchanged there.
 */
export function credentialHosts(backend: Backend, env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  switch (backend) {
    case 'claude-code':
      out.push(...urlHost(env.ANTHROPIC_BASE_URL));
      if (on(env.CLAUDE_CODE_USE_BEDROCK)) {
        if (env.ANTHROPIC_BEDROCK_BASE_URL) out.push(...urlHost(env.ANTHROPIC_BEDROCK_BASE_URL));
        else if (env.AWS_REGION && REGION.test(env.AWS_REGION)) out.push(`bedrock-runtime.${env.AWS_REGION}.amazonaws.com`);
      }
      if (on(env.CLAUDE_CODE_USE_VERTEX)) {
        if (env.ANTHROPIC_VERTEX_BASE_URL) out.push(...urlHost(env.ANTHROPIC_VERTEX_BASE_URL));
        else out.push(...vertexHost(env.CLOUD_ML_REGION));
        out.push('oauth2.googleapis.com');
      }
      break;
    case 'codex':
      out.push(...urlHost(env.OPENAI_BASE_URL));
      break;
    case 'gemini':
      out.push(...urlHost(env.GOOGLE_GEMINI_BASE_URL));
      if (on(env.GOOGLE_GENAI_USE_VERTEXAI)) out.push(...vertexHost(env.GOOGLE_CLOUD_LOCATION), 'oauth2.googleapis.com');
      if (on(env.GOOGLE_GENAI_USE_GCA)) out.push('cloudcode-pa.googleapis.com', 'oauth2.googleapis.com');
      break;
    case 'aider':
      out.push(...urlHost(env.OPENAI_API_BASE), ...urlHost(env.AZURE_API_BASE), ...urlHost(env.ANTHROPIC_API_BASE));
      break;
    case 'opencode':
    case 'copilot':
    case 'command':
      break;
  }
  return [...new Set(out)];
}

/** Hosts the model API of an agent needs: its providers' and its credential switches'. */
export function modelHosts(spec: AgentSpec): string[] {
  const providers = modelProviders(spec) ?? [];
  return [...new Set([...providers.flatMap((p) => PROVIDER_HOSTS[p]), ...credentialHosts(spec.uses, spec.env)])];
}

/** Programs that fetch an MCP server's package when they start it, and from where. */
const FETCHING_LAUNCHERS: Record<string, string[]> = {
  npx: ['registry.npmjs.org'],
  bunx: ['registry.npmjs.org'],
  uvx: ['pypi.org', 'files.pythonhosted.org'],
};

/** What one MCP server needs to reach: its package registry (`npx …`) or its URL's host. */
export function mcpServerHosts(server: McpServer): string[] {
  if ('url' in server) return urlHost(server.url);
  const program = server.command.split(/[\\/]/).pop() ?? '';
  return FETCHING_LAUNCHERS[program] ?? [];
}

/** One host of an agent's list, with why it is there (for `baton graph` and `baton doctor`). */
export interface AllowedHost {
  pattern: string;
  why: string;
}

/** Everything an agent may reach when a step does not narrow it, each host with why. */
export function agentHosts(spec: AgentSpec): AllowedHost[] {
  const out = new Map<string, string>();
  const add = (pattern: string, why: string): void => {
    if (!out.has(pattern)) out.set(pattern, why);
  };
  const providers = modelProviders(spec) ?? [];
  for (const p of providers) for (const h of PROVIDER_HOSTS[p]) add(h, `${spec.uses} model API`);
  for (const h of credentialHosts(spec.uses, spec.env)) add(h, 'endpoint of the credentials in its env');
  for (const [name, server] of Object.entries(spec.mcpServers ?? {})) for (const h of mcpServerHosts(server)) add(h, `MCP server ${name}`);
  for (const h of spec.network?.allow ?? []) add(h, 'network.allow');
  return [...out].map(([pattern, why]) => ({ pattern, why }));
}

/** The patterns only. */
export function agentAllowList(spec: AgentSpec): string[] {
  return agentHosts(spec).map((h) => h.pattern);
}

/**
 * Where a run step may go by default: the package registries, so `npm ci`, `pip install`,
 * `go mod download` and `cargo fetch` keep working, and nothing else (a test an agent wrote
 * runs there and should not reach the Internet at large). A run step's `network` replaces it.
 */
export const RUN_STEP_HOSTS: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'index.crates.io',
  'static.crates.io',
  'rubygems.org',
  'repo.maven.apache.org',
];

/** Resource limits when the manifest says nothing (the schema's documented defaults). */
export const DEFAULT_LIMITS: Required<{ [K in keyof LimitsSpec]: number | null }> = {
  cpuSeconds: 14_400,
  memoryMb: null,
  processes: 4096,
};

/**
 * Suffixes under which anyone can host anything (buckets, pages, functions): a wildcard on
 * one lets an agent send the repository to a bucket of anyone's.
 */
const SHARED_SUFFIXES = [
  'amazonaws.com', 'googleapis.com', 'appspot.com', 'cloudfunctions.net', 'run.app', 'github.io', 'githubusercontent.com',
  'windows.net', 'azurewebsites.net', 'cloudfront.net', 'herokuapp.com', 'vercel.app', 'netlify.app', 'pages.dev', 'workers.dev',
  'ngrok.io', 'ngrok-free.app', 'r2.dev', 'firebaseapp.com', 'web.app', 'fly.dev', 'onrender.com', 'co.uk', 'com.au',
];

/** Kinds whose steps run an agent or a command, where `network` and `sandbox` mean something. */
const SANDBOXED_KINDS: readonly Step['kind'][] = ['agent', 'review', 'run'];

export function checkNetwork(wf: Workflow, report: Report): void {
  for (const [name, spec] of Object.entries(wf.agents)) {
    spec.network?.allow.forEach((p, i) => checkPattern(p, `/agents/${name}/network/allow/${i}`, `\`network.allow\` of agent ${q(name)}`, report));
    for (const [server, s] of Object.entries(spec.mcpServers ?? {})) {
      if ('url' in s && urlHost(s.url).length === 0) {
        report(`/agents/${name}/mcp-servers/${server}/url`, `the \`url\` of MCP server ${q(server)} of agent ${q(name)} has no host the sandbox can allow (a lowercase DNS name or an IP address)`);
      }
    }
    if (modelProviders(spec) === null) {
      report(
        `/agents/${name}/model`,
        `baton does not know the model API hosts of ${q(spec.model)} (agent ${q(name)}, ${spec.uses}); list them in \`network.allow\`, or the sandbox will refuse them`,
        { warning: true },
      );
    }
  }
  wf.steps.forEach((s, i) => {
    const at = `/steps/${i}`;
    if (!SANDBOXED_KINDS.includes(s.kind)) {
      for (const key of ['network', 'sandbox'] as const) {
        if (s[key] !== undefined) report(`${at}/${key}`, `\`${key}\` of step ${q(s.id)} has no effect: only agent, review and run steps run anything, and this is a ${q(s.kind)} step`, { key: true });
      }
      return;
    }
    const agentName = s.kind === 'agent' || s.kind === 'review' ? s.agent : null;
    const agent = agentName === null ? undefined : wf.agents[agentName];
    if (agentName !== null && !agent) return; // reported by the agents check
    if (s.sandbox === 'preferred' && agent?.sandbox === 'required') {
      report(`${at}/sandbox`, `step ${q(s.id)} says \`sandbox: preferred\`, but its agent ${q(agentName)} requires the sandbox; a step can tighten its agent's \`sandbox\`, never loosen it`);
    }
    if (s.network === 'off' && agent && BACKEND_PROVIDERS[agent.uses].length) {
      report(`${at}/network`, `step ${q(s.id)} has \`network: off\`: its agent ${q(agentName)} (${agent.uses}) cannot reach its model API, so every attempt will fail; use \`network: { allow: [] }\` to keep only the model API`, { warning: true });
    }
    if (typeof s.network !== 'object') return;
    const allowed = agent ? agentAllowList(agent) : null;
    s.network.allow.forEach((p, j) => {
      const pointer = `${at}/network/allow/${j}`;
      if (!checkPattern(p, pointer, `\`network.allow\` of step ${q(s.id)}`, report) || allowed === null) return;
      if (!covers(allowed, p)) {
        report(
          pointer,
          `step ${q(s.id)} allows ${q(p)}, which its agent ${q(agentName)} does not (it allows: ${allowed.join(', ') || 'nothing'}); a step's \`network\` can only narrow its agent's: add ${q(p)} to \`agents.${agentName}.network.allow\``,
        );
      }
    });
  });
}

/** Reports a malformed or too-wide pattern; true when it is usable. */
function checkPattern(p: string, pointer: string, where: string, report: Report): boolean {
  const error = hostPatternError(p);
  if (error !== null) {
    report(pointer, `${where}: ${JSON.stringify(p)} ${error}`);
    return false;
  }
  const parsed = parseHostPattern(p)!;
  if (parsed.wildcard && SHARED_SUFFIXES.includes(parsed.name)) {
    report(pointer, `${where}: ${q(p)} allows every host under ${q(parsed.name)}, where anyone can host a bucket, site or function to send your code to; name the hosts you need`, { warning: true });
  }
  return true;
}

/**
 * What each agent of a workflow may reach and whether it needs the sandbox, then each step
 * that narrows it, in plain lines (`baton graph` and `baton doctor` print them).
 */
export function sandboxLines(wf: Workflow): string[] {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(wf.agents)) {
    const hosts = agentHosts(spec);
    const reach = hosts.length ? hosts.map((h) => `${h.pattern} (${h.why})`).join(', ') : 'nothing';
    lines.push(`agent ${name} (${spec.uses}), sandbox ${spec.sandbox ?? 'preferred'}: may reach ${reach}`);
  }
  for (const s of wf.steps) {
    if (!SANDBOXED_KINDS.includes(s.kind)) continue;
    const required = s.sandbox === 'required' ? ', sandbox required' : '';
    if (s.kind === 'run') {
      const reach = s.network === 'off' ? 'nothing' : typeof s.network === 'object' ? s.network.allow.join(', ') || 'nothing' : 'the package registries';
      lines.push(`step ${s.id} (run): may reach ${reach}${required}`);
    } else if ((s.kind === 'agent' || s.kind === 'review') && s.network !== undefined && s.network !== 'default') {
      const reach = s.network === 'off' ? 'nothing, not even its model API' : `its model API and ${s.network.allow.join(', ') || 'nothing else'}`;
      lines.push(`step ${s.id} narrows agent ${s.agent}: may reach ${reach}${required}`);
    } else if (required) lines.push(`step ${s.id}: sandbox required`);
  }
  return lines;
}
