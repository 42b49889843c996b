// Aider: `--message-file` runs one instruction and exits. It prints plain text, ending
// with a line like "Tokens: 2.1k sent, 135 received. Cost: $0.0082 message, $0.0082 session."
import type { AgentBackend } from './types.ts';
import type { ModelApi } from '../sandbox/proxy-models.ts';

const VERSION = '0.86.2';

export const aider: AgentBackend = {
  name: 'aider',
  binary: 'aider',
  version: VERSION,
  // pipx (on GitHub's Ubuntu runners) installs into its own venv: system pip refuses (PEP 668).
  install: { pipx: 'aider-chat' },
  // aider talks to many providers; any one key lets it run (the model decides which).
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'DEEPSEEK_API_KEY', 'OPENROUTER_API_KEY'],
  loginFiles: [],
  // litellm sends Anthropic's key as `x-api-key`, OpenAI's as `Authorization: Bearer`, Gemini's
  // as `?key=` (BerriAI/litellm litellm/llms/anthropic/common_utils.py, llms/gemini). DeepSeek
  // and OpenRouter keys stay in the agent.
  heldKeys: {
    ANTHROPIC_API_KEY: { api: 'anthropic', slot: 'x-api-key' },
    OPENAI_API_KEY: { api: 'openai', slot: 'bearer' },
    GEMINI_API_KEY: { api: 'google', slot: 'goog' },
  },
  // The repo map's tags cache (v3 or v4 depending on the tree-sitter pack installed).
  scratch: ['.aider.tags.cache.v3', '.aider.tags.cache.v4'],

  invocation(spec, prompt, opts) {
    const messageFile = `${opts.tmpDir}/aider-message.md`;
    // baton collects the changes itself, so aider must not commit them; no update checks,
    // no colours or streaming in a log. Nothing of aider's own lands in the checkout: no
    // `.aider*` line added to .gitignore, the histories (the full prompt) in the temp folder.
    const argv = [
      'aider', '--message-file', messageFile, '--yes-always', '--no-auto-commits', '--no-dirty-commits', '--no-check-update', '--no-pretty', '--no-stream',
      '--no-gitignore', '--analytics-disable', '--chat-history-file', `${opts.tmpDir}/aider-chat.md`, '--input-history-file', `${opts.tmpDir}/aider-input`,
    ];
    // Its configuration is what baton gives it: `--config` loads only the file named (aider
    // docs, "YAML config file"), here an empty one. `.env` and the model settings files are
    // read from the home folder, the repository root and the current folder whatever is named
    // (aider docs, "Config with .env", "Advanced model settings"): the named ones are empty,
    // and the worker puts the repository's back as the run's base had them before aider
    // starts (restore-agent-config.ts). No lint or test command runs on its own: a planted
    // `lint-cmd` or `AIDER_TEST_CMD` would run with the worker's environment.
    const config = `${opts.tmpDir}/aider-config`;
    argv.push(
      '--config', `${config}.yml`, '--env-file', `${config}.env`, '--model-settings-file', `${config}.model.settings.yml`, '--model-metadata-file', `${config}.model.metadata.json`,
      '--no-auto-lint', '--no-auto-test',
    );
    if (spec.model) argv.push('--model', spec.model);
    // aider has no turn limit or read-only switch: maxTurns and writes:false rely on the prompt.
    argv.push(...(spec.args ?? []));
    const files = { [messageFile]: prompt, [`${config}.yml`]: '', [`${config}.env`]: '', [`${config}.model.settings.yml`]: '[]\n', [`${config}.model.metadata.json`]: '{}\n' };
    return { argv, env: litellmBases(opts.modelBaseUrls ?? {}), files };
  },

  parse(stdout) {
    const usage: { costUsd?: number; inputTokens?: number; outputTokens?: number } = {};
    // Cache figures may sit between "sent" and "received" ("…, 1.2k cache write, 8k cache hit, …").
    const tokens = [...stdout.matchAll(/Tokens: ([\d.]+)(k?) sent(?:, [^,\n]*?)*, ([\d.]+)(k?) received/g)];
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
    return { finalMessage, usage, error: apiFailure(stdout) };
  },
};

/**
 * litellm's base-URL variables: ANTHROPIC_API_BASE (litellm/llms/anthropic/common_utils.py
 * get_api_base; it adds `/v1/messages`), OPENAI_API_BASE / OPENAI_BASE_URL (litellm/main.py; with
 * the version path), GEMINI_API_BASE (litellm/llms/gemini; it adds `/v1beta/…`).
 */
function litellmBases(urls: Partial<Record<ModelApi, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  if (urls.anthropic) env.ANTHROPIC_API_BASE = urls.anthropic;
  if (urls.openai) env.OPENAI_API_BASE = env.OPENAI_BASE_URL = `${urls.openai}/v1`;
  if (urls.google) env.GEMINI_API_BASE = urls.google;
  return env;
}

/**
 * Aider prints a provider failure (bad key, quota, overload after its retries) as
 * "litellm.<Name>Error: …" and still exits 0. The run failed when no token report follows
 * the last such line (a retried error followed by an answer is a success).
 */
function apiFailure(stdout: string): string | undefined {
  const lines = stdout.split('\n');
  let failed = -1;
  let reported = -1;
  lines.forEach((l, i) => {
    if (/^litellm\.\w+(Error|Exception)\b/.test(l.trim())) failed = i;
    else if (/^Tokens: .* sent/.test(l)) reported = i;
  });
  if (failed < 0 || reported > failed) return undefined;
  return `aider: the model provider refused the request: ${lines.slice(failed, failed + 3).map((l) => l.trim()).filter(Boolean).join(' / ').slice(0, 500)}`;
}
