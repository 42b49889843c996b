// Gemini CLI: headless when stdin is not a terminal or `--prompt` is given; it reads piped
// stdin and puts `--prompt` after it, so the task goes on stdin (no argv length limit).
// `--output-format json` prints one object
// { response, stats: { models: { <model>: { tokens: { prompt, candidates, … } } } }, error? }.
import type { AgentBackend, Usage } from './types.ts';
import { mcpOf, type McpServers } from './mcp-config.ts';
import { addUsage, num } from './types.ts';

const VERSION = '0.61.0';

export const gemini: AgentBackend = {
  name: 'gemini',
  binary: 'gemini',
  version: VERSION,
  install: { npm: '@google/gemini-cli' },
  // What headless auth accepts from the environment (packages/cli/src/validateNonInterActiveAuth.ts,
  // core/contentGenerator.ts): a Gemini API key, or Vertex AI / Code Assist chosen explicitly.
  credentials: ['GEMINI_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA'],
  // Vertex AI's: a project and location, or an express-mode API key (credentialProblem below).
  alternativeCredentials: ['GOOGLE_API_KEY'],
  loginFiles: ['.gemini/oauth_creds.json'],
  // The @google/genai SDK sends the key as `x-goog-api-key`. Vertex AI (Google Cloud
  // credentials) and a Google login (oauth_creds.json) cannot be held: they stay in the agent.
  heldKeys: { GEMINI_API_KEY: { api: 'google', slot: 'goog' } },


  credentialProblem(env) {
    if ((env.GEMINI_API_KEY ?? '') !== '' || env.GOOGLE_GENAI_USE_GCA === 'true') return null;
    if ((env.GOOGLE_GENAI_USE_VERTEXAI ?? '') === '') return null;
    if (env.GOOGLE_GENAI_USE_VERTEXAI !== 'true') return 'GOOGLE_GENAI_USE_VERTEXAI must be `true` to select Vertex AI';
    const project = (env.GOOGLE_CLOUD_PROJECT ?? '') !== '' && (env.GOOGLE_CLOUD_LOCATION ?? '') !== '';
    return project || (env.GOOGLE_API_KEY ?? '') !== '' ? null : 'Vertex AI needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY';
  },

  invocation(spec, prompt, opts) {
    // yolo approves every tool; the default mode lets a headless run use read-only tools only.
    const argv = ['gemini', '--output-format', 'json', '--approval-mode', opts.writes ? 'yolo' : 'default'];
    if (spec.model) argv.push('--model', spec.model);
    // No turn limit flag (it is the `model.maxSessionTurns` setting).
    // Its file tools reach only the workspace and what `--include-directories` adds: the
    // worker's temp folder (BATON_OUTPUT) is added by name. It used to go in ~/.gemini/tmp
    // instead, which behind the sandbox is the agent's home, out of the worker's reach.
    argv.push('--include-directories', opts.tmpDir);
    argv.push(...(spec.args ?? []), '--prompt', 'Do the task given above.');
    // A fresh checkout is an untrusted folder: a headless run there exits 55 and yolo is
    // downgraded to default. The checkout is the one baton was asked to work in.
    const env: Record<string, string> = { GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    // GOOGLE_GEMINI_BASE_URL: the Gemini API's base URL for the API-key sign-in (google-gemini/
    // gemini-cli packages/core/src/core/contentGenerator.ts, createContentGenerator). Set only
    // when the proxy holds GEMINI_API_KEY. Alone it also selects the CLI's "gateway" sign-in
    // (getAuthTypeFromEnv), which a headless run's check refuses as "Invalid auth method selected"
    // (packages/cli/src/config/auth.ts validateAuthMethod): the API-key sign-in is named in the
    // settings instead (`security.auth.selectedType`, read first by validateNonInteractiveAuth).
    const settings: Record<string, unknown> = {};
    if (opts.modelBaseUrls?.google) {
      env.GOOGLE_GEMINI_BASE_URL = opts.modelBaseUrls.google;
      settings.security = { auth: { selectedType: 'gemini-api-key' } };
    }
    // MCP servers: `mcpServers` of a settings file. The workspace's `.gemini/settings.json`
    // is in the checkout, and the user's is ~/.gemini (its login, its tmp folder): baton
    // names its own file as the system settings, which are merged over both
    // (GEMINI_CLI_SYSTEM_SETTINGS_PATH, gemini-cli docs/get-started/configuration.md); the
    // sign-in above goes in the same file.
    const mcp = mcpOf(opts);
    if (mcp) settings.mcpServers = geminiServers(mcp.servers);
    if (!Object.keys(settings).length) return { argv, stdin: prompt, env };
    const file = mcp ? mcp.file('gemini-settings.json') : `${opts.tmpDir}/gemini-settings.json`;
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH = file;
    return { argv, stdin: prompt, env, files: { [file]: JSON.stringify(settings, null, 2) } };
  },

  parse(stdout, stderr) {
    const start = stdout.indexOf('{');
    let v: any;
    try {
      v = JSON.parse(stdout.slice(start));
    } catch {
      return { finalMessage: stdout, usage: {}, error: stderrError(stderr) };
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

/** gemini's server shape: `command`/`args`/`env` for stdio, `httpUrl`/`headers` for streamable HTTP (`url` is SSE there). */
function geminiServers(servers: McpServers): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, s]) => [name, s.type === 'stdio' ? { command: s.command, args: s.args, env: s.env } : { httpUrl: s.url, headers: s.headers }]),
  );
}

/** Failures (no auth: code 41) come as `{ session_id, error: { message, code } }` on stderr. */
function stderrError(stderr: string): string | undefined {
  const start = stderr.indexOf('{');
  if (start < 0) return undefined;
  try {
    const v = JSON.parse(stderr.slice(start));
    return v?.error ? `gemini error${v.error.code !== undefined ? ` ${v.error.code}` : ''}: ${v.error.message ?? JSON.stringify(v.error)}` : undefined;
  } catch {
    return undefined;
  }
}
