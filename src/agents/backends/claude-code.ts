// Claude Code: `claude -p` (print mode) with the prompt on stdin. `--output-format json`
// prints one result object { type: "result", subtype, result, is_error, total_cost_usd,
// usage, structured_output?, errors? } — or, with verbose on (`--verbose`, or `verbose: true`
// in the user's settings), one JSON array of every message, the result last
// (anthropics/claude-code issue #84784). stream-json prints one message per line.
import type { AgentBackend, Parsed } from './types.ts';
import { mcpOf, mcpServersJson } from './mcp-config.ts';
import { num } from './types.ts';

export const claudeCode: AgentBackend = {
  name: 'claude-code',
  binary: 'claude',
  version: '2.1.332',
  install: { npm: '@anthropic-ai/claude-code' },
  // An API key, a gateway token, a token from `claude setup-token`, or a cloud provider
  // switched on (Bedrock needs AWS_REGION and AWS credentials; Vertex needs CLOUD_ML_REGION and
  // ANTHROPIC_VERTEX_PROJECT_ID): docs.anthropic.com/en/docs/claude-code/settings#environment-variables.
  credentials: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
  credentialCompanions: { CLAUDE_CODE_USE_BEDROCK: ['AWS_REGION'], CLAUDE_CODE_USE_VERTEX: ['CLOUD_ML_REGION', 'ANTHROPIC_VERTEX_PROJECT_ID'] },
  loginFiles: ['.claude/.credentials.json'],
  // The key goes in `x-api-key`; ANTHROPIC_AUTH_TOKEN and the OAuth token of `claude setup-token`
  // in `Authorization: Bearer` (Claude Code docs, settings#environment-variables; the Anthropic
  // API reference). All three reach the API through ANTHROPIC_BASE_URL.
  heldKeys: {
    ANTHROPIC_API_KEY: { api: 'anthropic', slot: 'x-api-key' },
    ANTHROPIC_AUTH_TOKEN: { api: 'anthropic', slot: 'bearer' },
    CLAUDE_CODE_OAUTH_TOKEN: { api: 'anthropic', slot: 'bearer' },
  },
  // Telemetry, error reporting, the bug command and the auto-updater off (Claude Code docs,
  // settings#environment-variables): behind the proxy they would only be refused.
  behindProxy: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },

  invocation(spec, prompt, opts) {
    // The worker runs in a throwaway checkout with a read-only token: nobody is there to
    // answer permission prompts, so they are bypassed. Non-writing steps lose the edit tools
    // and Bash (a shell edits files as well as Edit does).
    const argv = ['claude', '-p', '--output-format', 'json', '--permission-mode', 'bypassPermissions'];
    if (spec.model) argv.push('--model', spec.model);
    if (spec.maxTurns !== undefined) argv.push('--max-turns', String(spec.maxTurns));
    // Native structured output: the result's `structured_output` matches the schema.
    if (opts.outputsSchema && typeof opts.outputsSchema === 'object') argv.push('--json-schema', JSON.stringify(opts.outputsSchema));
    if (!opts.writes) argv.push('--disallowedTools', 'Edit', 'Write', 'NotebookEdit', 'Bash');
    // MCP servers: a `{ mcpServers }` file (`--mcp-config`, Claude Code CLI reference), and
    // only those (`--strict-mcp-config`): a `.mcp.json` in the checkout is the repository's
    // (or an issue's injected) choice, not the manifest's.
    const files: Record<string, string> = {};
    const mcp = mcpOf(opts);
    if (mcp) {
      files[mcp.file('claude-mcp.json')] = JSON.stringify({ mcpServers: mcpServersJson(mcp.servers) }, null, 2);
      argv.push('--mcp-config', mcp.file('claude-mcp.json'), '--strict-mcp-config');
    }
    argv.push(...(spec.args ?? []));
    // As root, claude refuses bypassPermissions ("--dangerously-skip-permissions cannot be used
    // with root/sudo privileges") unless told it is in a sandbox: the worker's job is one.
    const env: Record<string, string> = opts.root ? { IS_SANDBOX: '1' } : {};
    // Where the API is (Claude Code docs, settings#environment-variables: ANTHROPIC_BASE_URL);
    // the Anthropic SDK adds `/v1/messages` itself.
    if (opts.modelBaseUrls?.anthropic) env.ANTHROPIC_BASE_URL = opts.modelBaseUrls.anthropic;
    return { argv, stdin: prompt, env, ...(mcp && { files }) };
  },

  parse(stdout) {
    const result = resultMessage(stdout);
    // No result object (an old or unusual version): the text itself is the message.
    if (!result) return { finalMessage: stdout, usage: {} };
    const u = result.usage ?? {};
    const input = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens].map(num);
    const text = typeof result.result === 'string' ? result.result : '';
    const errors = Array.isArray(result.errors) ? result.errors.filter((e: unknown) => typeof e === 'string') : [];
    const parsed: Parsed = {
      finalMessage: text,
      usage: {
        costUsd: num(result.total_cost_usd) ?? num(result.cost_usd),
        inputTokens: input.some((n) => n !== undefined) ? input.reduce<number>((s, n) => s + (n ?? 0), 0) : undefined,
        outputTokens: num(u.output_tokens),
      },
      error: result.is_error ? `claude reported an error (${result.subtype ?? 'error'}): ${[text, ...errors].filter(Boolean).join('; ') || 'no reason given'}` : undefined,
    };
    if (result.structured_output !== undefined && result.structured_output !== null) parsed.structured = result.structured_output;
    // `--max-turns` reached: Claude Code ends with this subtype (its SDK's result message types).
    if (result.subtype === 'error_max_turns') parsed.limit = 'turns';
    return parsed;
  },
};

/** The `type: "result"` message: the object itself, the last one of a verbose array, or the last line of stream-json. */
function resultMessage(stdout: string): any {
  const isResult = (v: any) => v && typeof v === 'object' && v.type === 'result';
  try {
    const whole = JSON.parse(stdout);
    if (isResult(whole)) return whole;
    if (Array.isArray(whole)) return whole.filter(isResult).pop();
  } catch {
    // not one JSON value: lines
  }
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const v = JSON.parse(line);
      if (isResult(v)) return v;
    } catch {
      // progress or warnings
    }
  }
  return undefined;
}
