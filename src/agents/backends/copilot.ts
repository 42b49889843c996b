// GitHub Copilot CLI: `copilot -p <prompt>` runs non-interactively; `-s` leaves only the
// agent's answer on stdout. It reports premium requests, not money, so no cost is known.
// `--no-ask-user` needs CLI 1.0.19 or later (github/gh-aw, copilotSupportsNoAskUser).
import type { AgentBackend } from './types.ts';
import { mcpOf, mcpServersJson } from './mcp-config.ts';
import { promptArgument } from './types.ts';

const VERSION = '1.0.102';
const TOKENS = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'];

export const copilot: AgentBackend = {
  name: 'copilot',
  binary: 'copilot',
  version: VERSION,
  install: { npm: '@github/copilot' },
  // The first one set is used: a fine-grained token with the "Copilot Requests" permission,
  // or in Actions the job's GITHUB_TOKEN with `permissions: copilot-requests: write`.
  credentials: TOKENS,
  // Falls back to the GitHub CLI's login when no token is set.
  loginFiles: ['.config/gh/hosts.yml'],
  // No held keys: Copilot CLI signs in to GitHub with the token itself and exchanges it for its
  // API's own token (api.github.com, then *.githubcopilot.com over TLS), and has no setting that
  // points it at another base URL with a key the proxy could put in. The token stays in the agent.

  credentialProblem(env) {
    const name = TOKENS.find((n) => (env[n] ?? '') !== '');
    if (!name || !env[name]!.startsWith('ghp_')) return null;
    return `${name} is a classic personal access token (ghp_…), which Copilot CLI refuses; use a fine-grained token with the "Copilot Requests" permission, or in Actions the job's GITHUB_TOKEN with \`permissions: copilot-requests: write\``;
  },

  invocation(spec, prompt, opts) {
    const files: Record<string, string> = {};
    const argv = ['copilot', '-s', '--no-ask-user', '--allow-all-tools'];
    if (!opts.writes) argv.push('--deny-tool=write');
    if (spec.model) argv.push(`--model=${spec.model}`);
    // MCP servers: `--additional-mcp-config @<file>` (a JSON document or `@` and a path, added to
    // ~/.copilot/mcp-config.json for this session; github/copilot-cli issue #288). Copilot's
    // format wants the tools to enable on each server: all of them.
    const mcp = mcpOf(opts);
    if (mcp) {
      files[mcp.file('copilot-mcp.json')] = JSON.stringify({ mcpServers: mcpServersJson(mcp.servers, () => ({ tools: ['*'] })) }, null, 2);
      argv.push('--additional-mcp-config', `@${mcp.file('copilot-mcp.json')}`);
    }
    argv.push(...(spec.args ?? []), '-p', promptArgument(prompt, opts, files));
    return { argv, env: {}, files };
  },

  parse(stdout) {
    return { finalMessage: stdout, usage: {} };
  },
};
