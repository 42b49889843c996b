// Aider: `--message-file` runs one instruction and exits. It prints plain text, ending
// with a line like "Tokens: 2.1k sent, 135 received. Cost: $0.0082 message, $0.0082 session."
import type { AgentBackend } from './types.ts';

export const aider: AgentBackend = {
  name: 'aider',
  binary: 'aider',
  version: '0.86.1',
  install: { run: 'python -m pip install aider-install && aider-install' },
  // aider talks to many providers; any one key lets it run (the model decides which).
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'DEEPSEEK_API_KEY', 'OPENROUTER_API_KEY'],
  loginFiles: [],

  invocation(spec, prompt, opts) {
    const messageFile = `${opts.tmpDir}/aider-message.md`;
    // baton collects the changes itself, so aider must not commit them; no update checks,
    // no colours or streaming in a log.
    const argv = ['aider', '--message-file', messageFile, '--yes-always', '--no-auto-commits', '--no-dirty-commits', '--no-check-update', '--no-pretty', '--no-stream'];
    if (spec.model) argv.push('--model', spec.model);
    // aider has no turn limit or read-only switch: maxTurns and writes:false rely on the prompt.
    argv.push(...(spec.args ?? []));
    return { argv, env: {}, files: { [messageFile]: prompt } };
  },

  parse(stdout) {
    const usage: { costUsd?: number; inputTokens?: number; outputTokens?: number } = {};
    const tokens = [...stdout.matchAll(/Tokens: ([\d.]+)(k?) sent(?:,[^,\n]*?)?, ([\d.]+)(k?) received/g)];
    for (const m of tokens) {
      usage.inputTokens = (usage.inputTokens ?? 0) + Math.round(Number(m[1]) * (m[2] ? 1000 : 1));
      usage.outputTokens = (usage.outputTokens ?? 0) + Math.round(Number(m[3]) * (m[4] ? 1000 : 1));
    }
    // The session figure of the last report is the whole run's cost.
    const costs = [...stdout.matchAll(/Cost: \$([\d.]+) message, \$([\d.]+) session/g)];
    if (costs.length) usage.costUsd = Number(costs[costs.length - 1]![2]);
    const finalMessage = stdout
      .split('\n')
      .filter((l) => !/^Tokens: .* (sent|received)/.test(l))
      .join('\n');
    return { finalMessage, usage };
  },
};
