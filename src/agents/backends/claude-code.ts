// Claude Code: `claude -p` (print mode) with the prompt on stdin and one JSON object on
// stdout when it finishes: { type: "result", result, is_error, total_cost_usd, usage, … }.
import type { AgentBackend } from './types.ts';
import { num } from './types.ts';

export const claudeCode: AgentBackend = {
  name: 'claude-code',
  binary: 'claude',
  version: '2.1.332',
  install: { npm: '@anthropic-ai/claude-code' },
  // An API key, a token from `claude setup-token`, or a cloud provider switched on.
  credentials: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
  loginFiles: ['.claude/.credentials.json'],

  invocation(spec, prompt, opts) {
    // The worker runs in a throwaway checkout with a read-only token: nobody is there to
    // answer permission prompts, so they are bypassed; non-writing steps lose the edit tools.
    const argv = ['claude', '-p', '--output-format', 'json', '--permission-mode', 'bypassPermissions'];
    if (spec.model) argv.push('--model', spec.model);
    if (spec.maxTurns !== undefined) argv.push('--max-turns', String(spec.maxTurns));
    if (!opts.writes) argv.push('--disallowedTools', 'Edit', 'Write', 'NotebookEdit');
    argv.push(...(spec.args ?? []));
    return { argv, stdin: prompt, env: {} };
  },

  parse(stdout) {
    // With --output-format json the result object is the last JSON line (older versions
    // print only it; stream-json ends with it too).
    const lines = stdout.trim().split('\n').reverse();
    for (const line of lines) {
      let v: any;
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
      if (!v || v.type !== 'result') continue;
      const u = v.usage ?? {};
      const input = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens].map(num);
      return {
        finalMessage: typeof v.result === 'string' ? v.result : '',
        usage: {
          costUsd: num(v.total_cost_usd) ?? num(v.cost_usd),
          inputTokens: input.some((n) => n !== undefined) ? input.reduce<number>((s, n) => s + (n ?? 0), 0) : undefined,
          outputTokens: num(u.output_tokens),
        },
        error: v.is_error ? `claude reported an error (${v.subtype ?? 'error'}): ${typeof v.result === 'string' ? v.result : ''}`.trim() : undefined,
      };
    }
    // No result object (an old or unusual version): the text itself is the message.
    return { finalMessage: stdout, usage: {} };
  },
};
