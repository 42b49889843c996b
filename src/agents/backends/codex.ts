// OpenAI Codex CLI: `codex exec --json -` reads the prompt from stdin and prints JSONL
// events: thread.started, turn.started, item.* (agent_message, command_execution,
// file_change…), turn.completed { usage } or turn.failed / error.
import type { AgentBackend, Usage } from './types.ts';
import { addUsage, jsonLines, num } from './types.ts';

export const codex: AgentBackend = {
  name: 'codex',
  binary: 'codex',
  version: '0.169.0',
  install: { npm: '@openai/codex' },
  credentials: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  loginFiles: ['.codex/auth.json'],

  invocation(spec, prompt, opts) {
    // exec never stops for approvals; the sandbox decides what it may touch.
    const argv = ['codex', 'exec', '--json', '--sandbox', opts.writes ? 'workspace-write' : 'read-only'];
    if (spec.model) argv.push('--model', spec.model);
    // codex has no turn limit flag: maxTurns is not passed on.
    argv.push(...(spec.args ?? []), '-');
    return { argv, stdin: prompt, env: {} };
  },

  parse(stdout) {
    let finalMessage = '';
    let usage: Usage = {};
    let error: string | undefined;
    for (const e of jsonLines(stdout)) {
      if (e.type === 'item.completed' && e.item?.type === 'agent_message' && typeof e.item.text === 'string') finalMessage = e.item.text;
      else if (e.type === 'turn.completed' && e.usage) {
        const u = e.usage;
        usage = addUsage(usage, { inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens) });
      } else if (e.type === 'turn.failed') error = `codex turn failed: ${e.error?.message ?? 'no reason given'}`;
      else if (e.type === 'error') error = `codex error: ${e.message ?? 'no message'}`;
    }
    return { finalMessage, usage, error };
  },
};
