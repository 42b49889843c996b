// An agent's MCP servers as a backend receives them (resolved by ../mcp.ts), and the JSON
// shape claude-code and copilot share. Each backend writes its CLI's own format from these,
// into InvocationOptions.configDir: a private folder outside the checkout.
import type { InvocationOptions } from './types.ts';

export type ResolvedMcpServer =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http'; url: string; headers: Record<string, string> };

export type McpServers = Record<string, ResolvedMcpServer>;

/** Each server in the shape most CLIs share (`mcpServers` of claude and copilot): stdio or http. */
export function mcpServersJson(servers: McpServers, extra: (s: ResolvedMcpServer) => Record<string, unknown> = () => ({})): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, s]) => [
      name,
      s.type === 'stdio' ? { type: 'stdio', command: s.command, args: s.args, env: s.env, ...extra(s) } : { type: 'http', url: s.url, headers: s.headers, ...extra(s) },
    ]),
  );
}

/** The servers to write and the folder to write them in; null when the agent has none. */
export function mcpOf(opts: InvocationOptions): { servers: McpServers; file: (name: string) => string } | null {
  if (!opts.mcpServers || !Object.keys(opts.mcpServers).length) return null;
  // Never the checkout (nor tmpDir, which is inside it for opencode): a config there could be committed.
  if (!opts.configDir) throw new Error('MCP servers need a private configuration folder outside the checkout (configDir)');
  const dir = opts.configDir;
  return { servers: opts.mcpServers, file: (name) => `${dir}/${name}` };
}
