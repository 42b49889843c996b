// GitHub Copilot CLI: `copilot -p <prompt>` runs non-interactively; `-s` leaves only the
// agent's answer on stdout. It reports premium requests, not money, so no cost is known.
import type { AgentBackend } from './types.ts';
import { promptArgument } from './types.ts';

export const copilot: AgentBackend = {
  name: 'copilot',
  binary: 'copilot',
  version: '1.0.102',
  install: { npm: '@github/copilot' },
  // A token with the "Copilot Requests" permission; the Actions GITHUB_TOKEN does not have it.
  credentials: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
  // Falls back to the GitHub CLI's login when no token is set.
  loginFiles: ['.config/gh/hosts.yml'],

  invocation(spec, prompt, opts) {
    const files: Record<string, string> = {};
    const argv = ['copilot', '-s', '--no-ask-user', '--allow-all-tools'];
    if (!opts.writes) argv.push('--deny-tool=write');
    if (spec.model) argv.push(`--model=${spec.model}`);
    argv.push(...(spec.args ?? []), '-p', promptArgument(prompt, opts, files));
    return { argv, env: {}, files };
  },

  parse(stdout) {
    return { finalMessage: stdout, usage: {} };
  },
};
