// opencode: `opencode run` runs one prompt and exits; `--format json` prints JSONL events
// (text parts, and step_finish parts carrying cost and tokens). The prompt goes on stdin:
// `run` re-quotes every message argument containing a space, which would mangle it.
import type { AgentBackend, Usage } from './types.ts';
import { mcpOf, type McpServers } from './mcp-config.ts';
import { addUsage, jsonLines, num } from './types.ts';
import type { ModelApi } from '../sandbox/proxy-models.ts';

const VERSION = '1.18.33';

export const opencode: AgentBackend = {
  name: 'opencode',
  binary: 'opencode',
  version: VERSION,
  install: { npm: 'opencode-ai' },
  // opencode reaches many providers; any one key (or `opencode auth login`) is enough.
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'GITHUB_TOKEN'],
  loginFiles: ['.local/share/opencode/auth.json'],
  // The AI SDK providers opencode loads send Anthropic's key as `x-api-key`, OpenAI's as
  // `Authorization: Bearer`, Google's as `x-goog-api-key`. OpenRouter keys, GitHub tokens and
  // `opencode auth login` stay in the agent.
  heldKeys: {
    ANTHROPIC_API_KEY: { api: 'anthropic', slot: 'x-api-key' },
    OPENAI_API_KEY: { api: 'openai', slot: 'bearer' },
    GEMINI_API_KEY: { api: 'google', slot: 'goog' },
  },

  // Paths outside the project need an "ask" permission that `run` rejects: BATON_OUTPUT
  // lives in a folder inside the checkout, removed before the changes are listed.
  tmpParent: (cwd) => cwd,

  invocation(spec, prompt, opts) {
    const argv = ['opencode', 'run', '--format', 'json'];
    if (spec.model) argv.push('--model', spec.model); // provider/model
    // The built-in `plan` agent may not edit files. No turn limit flag in `run`.
    if (!opts.writes) argv.push('--agent', 'plan');
    argv.push(...(spec.args ?? []));
    // MCP servers: the `mcp` key of an opencode config given inline in OPENCODE_CONFIG_CONTENT,
    // the last config opencode merges ("runtime overrides", after the project's opencode.json:
    // opencode docs, config, "Precedence order"), so a server of the manifest is not replaced
    // or extended by one of the same name in the checkout. No file: nothing to land in the changes.
    // The model APIs whose key the proxy holds: `provider.<id>.options.baseURL` (opencode docs,
    // providers, "Base URL"), in the same runtime config, which the repository's cannot override.
    const mcp = mcpOf(opts);
    const provider = opencodeProviders(opts.modelBaseUrls ?? {});
    if (!mcp && !provider) return { argv, stdin: prompt, env: {} as Record<string, string> };
    const config = { $schema: 'https://opencode.ai/config.json', ...(mcp && { mcp: opencodeServers(mcp.servers) }), ...(provider && { provider }) };
    return { argv, stdin: prompt, env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
  },

  parse(stdout) {
    const events = jsonLines(stdout);
    if (!events.length) return { finalMessage: stdout, usage: {} };
    // Text parts of the last step make up the final message.
    let texts: string[] = [];
    let stepTexts: string[] = [];
    let usage: Usage = {};
    let error: string | undefined;
    for (const e of events) {
      const part = e.part ?? {};
      if (e.type === 'step_start') stepTexts = [];
      else if (e.type === 'text' && typeof part.text === 'string') stepTexts.push(part.text);
      else if (e.type === 'step_finish') {
        if (stepTexts.length) texts = stepTexts;
        usage = addUsage(usage, { costUsd: num(part.cost), inputTokens: num(part.tokens?.input), outputTokens: num(part.tokens?.output) });
      } else if (e.type === 'error') {
        // A session error is a NamedError: { name: "ProviderAuthError" | "APIError" | …, data: { message, statusCode? } }
        // (opencode session/message-v2.ts); the name and status say what kind of failure it was (infrastructure.ts).
        const kind = [e.error?.name, e.error?.data?.statusCode].filter((x) => typeof x === 'string' || typeof x === 'number').join(' status ');
        error = `opencode error${kind ? ` (${kind})` : ''}: ${e.error?.data?.message ?? e.error?.message ?? JSON.stringify(e.error ?? e)}`;
      }
    }
    if (stepTexts.length) texts = stepTexts;
    return { finalMessage: texts.join(''), usage, error };
  },
};

/** Each AI SDK provider's base URL ends in its API version (its default: https://api.anthropic.com/v1 …). */
const VERSION_PATH: Record<ModelApi, string> = { anthropic: '/v1', openai: '/v1', google: '/v1beta' };

function opencodeProviders(urls: Partial<Record<ModelApi, string>>): Record<string, unknown> | null {
  const entries = (Object.entries(urls) as [ModelApi, string][]).map(([api, url]) => [api, { options: { baseURL: `${url}${VERSION_PATH[api]}` } }]);
  return entries.length ? Object.fromEntries(entries) : null;
}

/** opencode's server shape: `local` with the whole argv in `command` and `environment`; `remote` with `url` and `headers`. */
function opencodeServers(servers: McpServers): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, s]) => [
      name,
      s.type === 'stdio' ? { type: 'local', command: [s.command, ...s.args], environment: s.env, enabled: true } : { type: 'remote', url: s.url, headers: s.headers, enabled: true },
    ]),
  );
}
