// An agent's MCP servers as each backend hands them to its CLI: the configuration file (or
// arguments) in the CLI's own format, written outside the checkout, for one stdio server
// and one remote server; `${NAME}` references read from the worker's environment.
import { describe, expect, it } from 'vitest';
import { backendFor } from '../../src/agents/backends/index.ts';
import { codexServer } from '../../src/agents/backends/codex.ts';
import { resolveMcpServers } from '../../src/agents/mcp.ts';
import { WorkerSetupError } from '../../src/agents/preflight.ts';
import type { AgentSpec, Backend } from '../../src/manifest/types.ts';

const SERVERS: AgentSpec['mcpServers'] = {
  docs: { command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: '${DOCS_SECRET}', MODE: 'read' } },
  search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${SEARCH_KEY}' } },
};
const ENV = { DOCS_SECRET: 'docs-secret-123', SEARCH_KEY: 'search-key-456' };

function invocation(uses: Backend) {
  const spec: AgentSpec = { uses, env: {}, mcpServers: SERVERS };
  const mcp = resolveMcpServers('coder', spec, ENV)!;
  return backendFor(uses).invocation(spec, 'PROMPT', { tmpDir: '/tmp/w', writes: true, mcpServers: mcp.servers, configDir: '/tmp/cfg' });
}

const json = (text: string | undefined) => JSON.parse(text ?? 'null');

describe('MCP servers in each CLI\'s own format', () => {
  it('claude-code: a { mcpServers } file given to --mcp-config, and only those servers (--strict-mcp-config)', () => {
    const inv = invocation('claude-code');
    expect(inv.argv.join(' ')).toContain('--mcp-config /tmp/cfg/claude-mcp.json --strict-mcp-config');
    expect(json(inv.files?.['/tmp/cfg/claude-mcp.json'])).toEqual({
      mcpServers: {
        docs: { type: 'stdio', command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: 'docs-secret-123', MODE: 'read' } },
        search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-key-456' } },
      },
    });
  });

  it('codex: one `-c mcp_servers.<name>=<TOML inline table>` per server', () => {
    const inv = invocation('codex');
    expect(inv.files ?? {}).toEqual({});
    const overrides = inv.argv.flatMap((a, i) => (inv.argv[i - 1] === '-c' ? [a] : []));
    expect(overrides).toEqual([
      'mcp_servers.docs={command="npx", args=["-y", "@acme/docs-mcp"], env={"DOCS_TOKEN"="docs-secret-123", "MODE"="read"}}',
      'mcp_servers.search={url="https://mcp.example.com/mcp", http_headers={"Authorization"="Bearer search-key-456"}}',
    ]);
    // The prompt stays the last argument (`-`: stdin).
    expect(inv.argv.at(-1)).toBe('-');
  });

  it('codex: values are TOML strings, quotes, backslashes and control characters escaped', () => {
    expect(codexServer({ type: 'stdio', command: 'a"b\\c', args: ['x\ny\u007f'], env: {} })).toBe('{command="a\\"b\\\\c", args=["x\\ny\\u007f"], env={}}');
  });

  it('gemini: `mcpServers` of a settings file named as the system settings (httpUrl: streamable HTTP)', () => {
    const inv = invocation('gemini');
    expect(inv.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBe('/tmp/cfg/gemini-settings.json');
    expect(inv.env.GEMINI_CLI_TRUST_WORKSPACE).toBe('true');
    expect(json(inv.files?.['/tmp/cfg/gemini-settings.json'])).toEqual({
      mcpServers: {
        docs: { command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: 'docs-secret-123', MODE: 'read' } },
        search: { httpUrl: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-key-456' } },
      },
    });
  });

  it('opencode: the `mcp` key of an inline config in OPENCODE_CONFIG_CONTENT, merged last (local: one argv; remote: url)', () => {
    const inv = invocation('opencode');
    expect(inv.files ?? {}).toEqual({});
    expect(json(inv.env.OPENCODE_CONFIG_CONTENT)).toEqual({
      $schema: 'https://opencode.ai/config.json',
      mcp: {
        docs: { type: 'local', command: ['npx', '-y', '@acme/docs-mcp'], environment: { DOCS_TOKEN: 'docs-secret-123', MODE: 'read' }, enabled: true },
        search: { type: 'remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-key-456' }, enabled: true },
      },
    });
  });

  it('copilot: --additional-mcp-config @<file>, every tool of each server enabled', () => {
    const inv = invocation('copilot');
    expect(inv.argv.join(' ')).toContain('--additional-mcp-config @/tmp/cfg/copilot-mcp.json');
    expect(inv.argv.slice(-2)).toEqual(['-p', 'PROMPT']);
    expect(json(inv.files?.['/tmp/cfg/copilot-mcp.json'])).toEqual({
      mcpServers: {
        docs: { type: 'stdio', command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: 'docs-secret-123', MODE: 'read' }, tools: ['*'] },
        search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer search-key-456' }, tools: ['*'] },
      },
    });
  });

  it('an agent without MCP servers gets no MCP flags, variables or files', () => {
    for (const uses of ['claude-code', 'codex', 'gemini', 'opencode', 'copilot'] as const) {
      const inv = backendFor(uses).invocation({ uses, env: {} }, 'P', { tmpDir: '/tmp/w', writes: true });
      expect(inv.argv.join(' ')).not.toMatch(/mcp/);
      expect(Object.keys(inv.env)).not.toContain('OPENCODE_CONFIG_CONTENT');
      expect(Object.keys(inv.env)).not.toContain('GEMINI_CLI_SYSTEM_SETTINGS_PATH');
      expect(Object.keys(inv.files ?? {})).toEqual([]);
    }
  });

  it('never writes a configuration without a private folder for it (not into tmpDir, which may be the checkout)', () => {
    const mcp = resolveMcpServers('coder', { uses: 'opencode', env: {}, mcpServers: SERVERS }, ENV)!;
    expect(() => backendFor('opencode').invocation({ uses: 'opencode', env: {} }, 'P', { tmpDir: '/repo/.baton-worker-x', writes: true, mcpServers: mcp.servers })).toThrow(/outside the checkout/);
  });
});

describe('resolving an agent\'s MCP servers in the worker', () => {
  it('reads `${NAME}` from the environment and hides what it read, headers and secret-named variables', () => {
    const r = resolveMcpServers('coder', { uses: 'claude-code', env: {}, mcpServers: { ...SERVERS, plain: { command: 'srv', env: { API_KEY: 'literal-key-789', LEVEL: 'verbose-level' } } } }, ENV)!;
    expect(r.servers.docs).toEqual({ type: 'stdio', command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: 'docs-secret-123', MODE: 'read' } });
    expect(r.secrets.sort()).toEqual(['Bearer search-key-456', 'docs-secret-123', 'literal-key-789', 'search-key-456'].sort());
  });

  it('fails the setup, naming the variable, when a reference is not set', () => {
    const run = () => resolveMcpServers('coder', { uses: 'codex', env: {}, mcpServers: SERVERS }, { SEARCH_KEY: 'x' });
    expect(run).toThrow(WorkerSetupError);
    expect(run).toThrow(/MCP server "docs" of agent coder: env.DOCS_TOKEN reads \$\{DOCS_SECRET\}, which the worker's environment does not set/);
  });

  it('refuses servers for aider and command agents, and names that could escape a config key', () => {
    expect(() => resolveMcpServers('a', { uses: 'aider', env: {}, mcpServers: SERVERS }, ENV)).toThrow(/aider has no MCP client/);
    expect(() => resolveMcpServers('a', { uses: 'command', env: {}, run: ['x'], mcpServers: SERVERS }, ENV)).toThrow(/cannot be given MCP servers/);
    expect(() => resolveMcpServers('a', { uses: 'codex', env: {}, mcpServers: { 'x.y=1': { command: 'c' } } }, ENV)).toThrow(/the name must be a letter/);
    expect(resolveMcpServers('a', { uses: 'aider', env: {} }, ENV)).toBeNull();
  });
});
