// `agents.<name>.mcp-servers`: MCP servers an agent's CLI is given. Their names become
// configuration keys and command-line arguments of the CLI, so the schema holds them to a
// safe pattern; what only the whole agent can get wrong is checked here. Secrets never go
// in the manifest (anyone who can read the repository reads it): `env` and `headers` values
// read the worker's environment as `${NAME}`, resolved by the worker (src/agents/mcp.ts).
import { q } from './diagnostics.ts';
import type { Report } from './semantic.ts';
import type { Backend, McpServer, Workflow } from './types.ts';

/** Backends whose CLI takes no MCP servers. */
export const NO_MCP: Partial<Record<Backend, string>> = {
  aider: 'aider has no MCP client',
  command: 'baton cannot know how the program would take them',
};

/** `${NAME}` in a value: NAME is a variable of the worker's environment. */
export const MCP_REFERENCE = /\$\{([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names of variables and headers that carry credentials. */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|(^|_)KEY|API_?KEY|PRIVATE_KEY|CREDENTIALS?|(^|_)PAT|AUTHORIZATION|COOKIE)$/i;

/** The `mcp-servers` of a raw agent, normalised (undefined when the key is absent). */
export function normalizeMcpServers(raw: unknown): Record<string, McpServer> | undefined {
  if (raw === undefined || raw === null || typeof raw !== 'object') return undefined;
  const out: Record<string, McpServer> = {};
  for (const [name, v] of Object.entries(raw as Record<string, any>)) {
    const s: Record<string, unknown> = {};
    for (const key of ['command', 'url'] as const) if (v?.[key] !== undefined) s[key] = String(v[key]);
    if (Array.isArray(v?.args)) s.args = v.args.map(String);
    for (const key of ['env', 'headers'] as const) {
      if (v?.[key] && typeof v[key] === 'object') s[key] = Object.fromEntries(Object.entries(v[key] as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
    }
    out[name] = s as McpServer;
  }
  return out;
}

/** The variable names a value reads as `${NAME}` (invalid names included, for the check). */
export function mcpReferences(value: string): string[] {
  return [...value.matchAll(MCP_REFERENCE)].map((m) => m[1]!);
}

export function checkMcpServers(wf: Workflow, report: Report): void {
  for (const [agent, spec] of Object.entries(wf.agents)) {
    if (!spec.mcpServers) continue;
    const at = `/agents/${agent}/mcp-servers`;
    const cannot = NO_MCP[spec.uses];
    if (cannot && Object.keys(spec.mcpServers).length) {
      report(at, `agent ${q(agent)} uses ${q(spec.uses)}, which cannot be given MCP servers (${cannot}); use claude-code, codex, gemini, opencode or copilot, or remove \`mcp-servers\``, { key: true });
      continue;
    }
    for (const [name, server] of Object.entries(spec.mcpServers)) checkServer(agent, name, server, `${at}/${name}`, report);
  }
}

function checkServer(agent: string, name: string, server: McpServer, at: string, report: Report): void {
  const s = server as Partial<Record<'command' | 'url', string>> & { args?: string[]; env?: Record<string, string>; headers?: Record<string, string> };
  const what = `MCP server ${q(name)} of agent ${q(agent)}`;
  if (s.command === undefined && s.url === undefined) {
    report(at, `${what} needs \`command\` (a program to start) or \`url\` (a remote server)`);
    return;
  }
  if (s.command !== undefined && s.url !== undefined) {
    report(`${at}/url`, `${what} has both \`command\` and \`url\`; give one: \`command\` starts a program, \`url\` reaches a remote server`, { key: true });
    return;
  }
  for (const [key, needs] of [['args', 'command'], ['env', 'command'], ['headers', 'url']] as const) {
    if (s[key] !== undefined && s[needs] === undefined) report(`${at}/${key}`, `\`${key}\` of ${what} needs \`${needs}\`; ${key === 'headers' ? 'a program started with `command` takes `env`' : 'a remote server takes `headers`'}`, { key: true });
  }
  for (const key of ['env', 'headers'] as const) {
    for (const [k, value] of Object.entries(s[key] ?? {})) checkValue(what, key, k, value, `${at}/${key}/${k}`, report);
  }
}

function checkValue(what: string, key: 'env' | 'headers', name: string, value: string, at: string, report: Report): void {
  const field = `${key === 'env' ? 'variable' : 'header'} ${q(name)} of ${what}`;
  if (value.includes('${{')) {
    report(at, `${field}: \`\${{ }}\` expressions are not evaluated in \`mcp-servers\`; read a variable of the worker's environment as \`\${NAME}\` (a secret passed to the worker job with \`env:\`)`);
    return;
  }
  const refs = mcpReferences(value);
  const bad = refs.find((r) => !ENV_NAME.test(r));
  if (bad !== undefined) {
    report(at, `${field} reads ${q('${' + bad + '}')}, which is not a variable name: letters, digits and \`_\`, not starting with a digit`);
    return;
  }
  if (!refs.length && value.length > 0 && SECRET_NAME.test(name.replace(/-/g, '_'))) {
    report(
      at,
      `${field} is written in the manifest, which anyone who can read the repository reads; if it is a secret, pass it to the worker job with \`env:\` and write \`\${NAME}\` here`,
      { warning: true },
    );
  }
}

