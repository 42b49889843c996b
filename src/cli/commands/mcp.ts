// `baton mcp`
import { serveStdio } from '../../mcp/stdio.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';

export const help = `Usage: baton mcp

Serves baton's MCP tools over stdio, for Claude Code, Codex, Cursor and other MCP
clients: baton_list_workflows, baton_validate, baton_start_run, baton_get_run,
baton_list_runs, baton_answer, baton_approve, baton_cancel, baton_wait.

Each tool takes a target: \`path\` (a local repository) or \`repository\` (owner/repo)
with \`number\` (the issue or pull request). GitHub targets read:
  GITHUB_TOKEN      a token of the person using the agent (comments are posted as them)
  GITHUB_API_URL    for GitHub Enterprise Server (default https://api.github.com)
  BATON_APP_LOGIN   the App's bot login whose status comments are trusted (default baton[bot])`;

export async function mcpCommand(args: string[], _io: CliIO): Promise<number> {
  if (args.length) throw new UsageError(`unexpected ${args.join(' ')}`);
  await serveStdio();
  return EXIT.ok;
}
