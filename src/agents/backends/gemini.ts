// Gemini CLI: headless with `--prompt`; `--output-format json` prints one object
// { response, stats: { models: { <model>: { tokens: { prompt, candidates, … } } } }, error? }.
import type { AgentBackend, Usage } from './types.ts';
import { addUsage, num, promptArgument } from './types.ts';

export const gemini: AgentBackend = {
  name: 'gemini',
  binary: 'gemini',
  version: '0.61.0',
  install: { npm: '@google/gemini-cli' },
  credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS'],
  loginFiles: ['.gemini/oauth_creds.json'],

  invocation(spec, prompt, opts) {
    const files: Record<string, string> = {};
    // yolo approves every tool; the default mode lets a headless run use read-only tools only.
    const argv = ['gemini', '--output-format', 'json', '--approval-mode', opts.writes ? 'yolo' : 'default'];
    if (spec.model) argv.push('--model', spec.model);
    // No turn limit flag (it is the `model.maxSessionTurns` setting).
    argv.push(...(spec.args ?? []), '--prompt', promptArgument(prompt, opts, files));
    return { argv, env: {}, files };
  },

  parse(stdout) {
    const start = stdout.indexOf('{');
    let v: any;
    try {
      v = JSON.parse(stdout.slice(start));
    } catch {
      return { finalMessage: stdout, usage: {} };
    }
    let usage: Usage = {};
    for (const m of Object.values<any>(v?.stats?.models ?? {})) {
      usage = addUsage(usage, { inputTokens: num(m?.tokens?.prompt), outputTokens: num(m?.tokens?.candidates) });
    }
    return {
      finalMessage: typeof v?.response === 'string' ? v.response : '',
      usage,
      error: v?.error ? `gemini error: ${v.error.message ?? JSON.stringify(v.error)}` : undefined,
    };
  },
};
