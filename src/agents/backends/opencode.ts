// opencode: `opencode run <message>` runs one prompt and exits; `--format json` prints
// JSONL events (text parts, and step_finish parts carrying cost and tokens).
import type { AgentBackend, Usage } from './types.ts';
import { addUsage, jsonLines, num, promptArgument } from './types.ts';

export const opencode: AgentBackend = {
  name: 'opencode',
  binary: 'opencode',
  version: '1.18.33',
  install: { npm: 'opencode-ai' },
  // opencode reaches many providers; any one key (or `opencode auth login`) is enough.
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'GITHUB_TOKEN'],
  loginFiles: ['.local/share/opencode/auth.json'],

  invocation(spec, prompt, opts) {
    const files: Record<string, string> = {};
    const argv = ['opencode', 'run', '--format', 'json'];
    if (spec.model) argv.push('--model', spec.model); // provider/model
    // No turn limit or read-only flag in `run`: those rely on the agent config and the prompt.
    argv.push(...(spec.args ?? []), promptArgument(prompt, opts, files));
    return { argv, env: {}, files };
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
      } else if (e.type === 'error') error = `opencode error: ${e.error?.data?.message ?? e.error?.message ?? JSON.stringify(e.error ?? e)}`;
    }
    if (stepTexts.length) texts = stepTexts;
    return { finalMessage: texts.join(''), usage, error };
  },
};
