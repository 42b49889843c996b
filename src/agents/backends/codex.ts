// OpenAI Codex CLI: `codex exec --json -` reads the prompt from stdin and prints JSONL
// events: thread.started, turn.started, item.* (agent_message, command_execution,
// file_change…), turn.completed { usage } or turn.failed, and `error` events — some of
// them retryable ("Reconnecting... 2/5 …"), after which the turn may still complete
// (openai/codex codex-rs/exec/src/event_processor_with_jsonl_output.rs; issue #32984).
import { estimateCost, priceOf } from '../prices.ts';
import { fitsStrictMode } from './strict-schema.ts';
import type { AgentBackend, Usage } from './types.ts';
import { mcpOf, type ResolvedMcpServer } from './mcp-config.ts';
import { jsonLines, num } from './types.ts';

/**
 * What bubblewrap prints when it cannot make its namespaces, e.g. on ubuntu-24.04 where
 * AppArmor restricts unprivileged user namespaces ("bwrap: loopback: Failed RTM_NEWADDR:
 * Operation not permitted", openai/codex issues #17337, #15057, #29908).
 */
const SANDBOX_BROKEN = /bwrap:|RTM_NEWADDR|(setting up|creat\w*|unshare)[^\n]*namespace|uid map/i;

export const SANDBOX_ADVICE =
  "codex's sandbox (bubblewrap) could not start, so every command it ran failed: on Ubuntu 24.04 AppArmor blocks unprivileged user namespaces; run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` in the job before the agent (the worker workflow `baton init` writes does, on GitHub-hosted Linux runners)";

export const codex: AgentBackend = {
  name: 'codex',
  binary: 'codex',
  version: '0.169.0',
  install: { npm: '@openai/codex' },
  // `codex exec` reads CODEX_API_KEY (or a stored `codex login`), not OPENAI_API_KEY
  // (openai/codex codex-rs/login/src/auth/manager.rs; developers.openai.com/codex/noninteractive).
  credentials: ['CODEX_API_KEY'],
  notEnough: { OPENAI_API_KEY: '`codex exec` does not read OPENAI_API_KEY: set CODEX_API_KEY to the same key' },
  loginFiles: ['.codex/auth.json'],
  // An API key goes as `Authorization: Bearer` (openai/codex codex-rs/model-provider-info).
  // A ChatGPT login (auth.json's tokens, chatgpt.com) cannot be held: it stays in the agent.
  heldKeys: { CODEX_API_KEY: { api: 'openai', slot: 'bearer' } },

  invocation(spec, prompt, opts) {
    // exec never stops for approvals; the sandbox decides what it may touch.
    const argv = ['codex', 'exec', '--json', '--sandbox', opts.writes ? 'workspace-write' : 'read-only'];
    if (spec.model) argv.push('--model', spec.model);
    // codex has no turn limit flag: maxTurns is not passed on.
    // MCP servers: `-c mcp_servers.<name>=<TOML inline table>` overrides the `[mcp_servers.<name>]`
    // table of ~/.codex/config.toml for this run (`codex exec --help`: "-c key=value", the value
    // parsed as TOML; openai/codex docs/config.md). A CODEX_HOME of baton's would hide the
    // user's login (auth.json) and settings.
    for (const [name, server] of Object.entries(mcpOf(opts)?.servers ?? {})) argv.push('-c', `mcp_servers.${name}=${codexServer(server)}`);
    // The built-in OpenAI provider's base URL is the top-level `openai_base_url` key (openai/codex
    // PR #12031); the OPENAI_BASE_URL variable it replaced is no longer read (PR #16720).
    if (opts.modelBaseUrls?.openai) argv.push('-c', `openai_base_url=${JSON.stringify(`${opts.modelBaseUrls.openai}/v1`)}`);
    // Native structured output: the final message is JSON matching the schema. Only for
    // schemas OpenAI's strict mode takes as they are (./strict-schema.ts); others stay with
    // the prompt's instructions and baton's own validation.
    const files: Record<string, string> = {};
    if (fitsStrictMode(opts.outputsSchema)) {
      const path = `${opts.tmpDir}/codex-output-schema.json`;
      files[path] = JSON.stringify(opts.outputsSchema);
      argv.push('--output-schema', path);
    }
    argv.push(...(spec.args ?? []), '-');
    return { argv, stdin: prompt, env: {}, files };
  },

  parse(stdout, _stderr, spec) {
    let finalMessage = '';
    let input = 0;
    let cached = 0;
    let output = 0;
    let turns = 0;
    let failed: string | undefined;
    // An error event is fatal only if no turn completes after it (retries end in turn.completed).
    let pendingError: string | undefined;
    let commands = 0;
    let sandboxFailures = 0;
    for (const e of jsonLines(stdout)) {
      if (e.type === 'item.completed' && e.item?.type === 'agent_message' && typeof e.item.text === 'string') finalMessage = e.item.text;
      else if (e.type === 'item.completed' && e.item?.type === 'command_execution') {
        commands++;
        const out = typeof e.item.aggregated_output === 'string' ? e.item.aggregated_output : '';
        if ((e.item.status === 'failed' || (num(e.item.exit_code) ?? 0) !== 0) && SANDBOX_BROKEN.test(out)) sandboxFailures++;
      } else if (e.type === 'turn.completed') {
        turns++;
        pendingError = undefined;
        const u = e.usage ?? {};
        input += num(u.input_tokens) ?? 0;
        cached += num(u.cached_input_tokens) ?? 0;
        output += num(u.output_tokens) ?? 0;
      } else if (e.type === 'turn.failed') failed = `codex turn failed: ${e.error?.message ?? 'no reason given'}`;
      else if (e.type === 'error') pendingError = `codex error: ${e.message ?? 'no message'}`;
    }
    // codex reports no dollar figure: the cost is estimated from its tokens (../prices.ts).
    const usage: Usage = turns ? { inputTokens: input, outputTokens: output, costUsd: estimateCost(priceOf(spec?.model), { inputTokens: input, cachedInputTokens: cached, outputTokens: output }), costEstimated: true } : {};
    const sandbox = commands > 0 && sandboxFailures === commands ? SANDBOX_ADVICE : undefined;
    return { finalMessage, usage, error: failed ?? pendingError ?? sandbox };
  },
};

/** A server as a TOML inline table: `command`/`args`/`env` (stdio) or `url`/`http_headers` (streamable HTTP). */
export function codexServer(s: ResolvedMcpServer): string {
  // A JSON string is a TOML basic string (the same escapes), but for DEL, which TOML wants
  // escaped too; keys are quoted the same way.
  const str = (v: string): string => JSON.stringify(v).replace(/\x7f/g, '\\u007f');
  const table = (m: Record<string, string>): string => `{${Object.entries(m).map(([k, v]) => `${str(k)}=${str(v)}`).join(', ')}}`;
  if (s.type === 'stdio') return `{command=${str(s.command)}, args=[${s.args.map(str).join(', ')}], env=${table(s.env)}}`;
  return `{url=${str(s.url)}, http_headers=${table(s.headers)}}`;
}
