// `agents.<name>.mcp-servers`: what a valid one normalises to, and each mistake refused (or
// warned about) with a sentence at the line a person would fix, marked `# <-`.
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';

const steps = 'steps:\n  - id: a\n    agent: coder\n    prompt: hi\n';
const agent = (uses: string, servers: string) => `agents:\n  coder:\n    uses: ${uses}\n    mcp-servers:\n${servers}${steps}`;

function diagnostics(yaml: string, severity: 'error' | 'warning') {
  return loadWorkflowText('wf.yml', yaml).diagnostics.filter((d) => d.severity === severity);
}

function markedLine(yaml: string): number {
  const i = yaml.split('\n').findIndex((l) => l.includes('# <-'));
  if (i === -1) throw new Error('test case has no `# <-` marker');
  return i + 1;
}

describe('a valid mcp-servers', () => {
  it('normalises a stdio and a remote server as written', () => {
    const r = loadWorkflowText(
      'wf.yml',
      agent(
        'claude-code',
        '      docs:\n        command: npx\n        args: [-y, "@acme/docs-mcp"]\n        env: { DOCS_TOKEN: "${DOCS_TOKEN}", MODE: read }\n' +
          '      search:\n        url: https://mcp.example.com/mcp\n        headers: { Authorization: "Bearer ${SEARCH_KEY}" }\n',
      ),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.loaded!.workflow.agents.coder!.mcpServers).toEqual({
      docs: { command: 'npx', args: ['-y', '@acme/docs-mcp'], env: { DOCS_TOKEN: '${DOCS_TOKEN}', MODE: 'read' } },
      search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${SEARCH_KEY}' } },
    });
  });

  it('leaves an agent without it (and the workflow hash) as before', () => {
    const r = loadWorkflowText('wf.yml', `agents:\n  coder: { uses: codex }\n${steps}`);
    expect('mcpServers' in r.loaded!.workflow.agents.coder!).toBe(false);
  });
});

const errors: { name: string; yaml: string; message: string | RegExp }[] = [
  {
    name: 'a backend that cannot take MCP servers',
    yaml: agent('aider', '      docs: { command: npx } # <-\n').replace('    mcp-servers:\n', '    mcp-servers: # <-\n').replace(' # <-\n' + steps, '\n' + steps),
    message: 'agent `coder` uses `aider`, which cannot be given MCP servers (aider has no MCP client); use claude-code, codex, gemini, opencode or copilot, or remove `mcp-servers`',
  },
  { name: 'neither command nor url', yaml: agent('codex', '      docs: { args: [x] } # <-\n'), message: 'MCP server `docs` of agent `coder` needs `command` (a program to start) or `url` (a remote server)' },
  { name: 'both command and url', yaml: agent('codex', '      docs: { command: npx, url: "https://x.example/mcp" } # <-\n'), message: /MCP server `docs` of agent `coder` has both `command` and `url`; give one/ },
  { name: 'headers on a stdio server', yaml: agent('gemini', '      docs:\n        command: npx\n        headers: { X-A: b } # <-\n'), message: '`headers` of MCP server `docs` of agent `coder` needs `url`; a program started with `command` takes `env`' },
  { name: 'env on a remote server', yaml: agent('gemini', '      docs:\n        url: https://x.example/mcp\n        env: { A: b } # <-\n'), message: '`env` of MCP server `docs` of agent `coder` needs `command`; a remote server takes `headers`' },
  { name: 'an expression in a value', yaml: agent('opencode', '      docs:\n        command: npx\n        env:\n          TOKEN: ${{ inputs.token }} # <-\n'), message: /variable `TOKEN` of MCP server `docs` of agent `coder`: `\$\{\{ \}\}` expressions are not evaluated in `mcp-servers`; read a variable of the worker's environment as `\$\{NAME\}`/ },
  { name: 'a reference that is not a variable name', yaml: agent('copilot', '      docs:\n        url: https://x.example/mcp\n        headers:\n          Authorization: "Bearer ${my token}" # <-\n'), message: 'header `Authorization` of MCP server `docs` of agent `coder` reads `${my token}`, which is not a variable name' },
  { name: 'a server name that would break a config key', yaml: agent('codex', '      "docs.v2": { command: npx } # <-\n'), message: /^`docs.v2` in agent `coder` is not a valid name; it must start with a letter/ },
  { name: 'a url that is not http(s)', yaml: agent('codex', '      docs: { url: "file:///etc/passwd" } # <-\n'), message: /is `file:\/\/\/etc\/passwd`; it must be an http:\/\/ or https:\/\/ URL/ },
  { name: 'an unknown key', yaml: agent('codex', '      docs: { command: npx, cwd: /tmp } # <-\n'), message: /unknown key `cwd`/ },
];

describe('mistakes in mcp-servers', () => {
  it.each(errors)('$name', ({ yaml, message }) => {
    const found = diagnostics(yaml, 'error');
    const matching = found.filter((d) => (typeof message === 'string' ? d.message.includes(message) : message.test(d.message)));
    expect(matching, `errors were:\n${found.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n')}`).not.toHaveLength(0);
    expect(matching[0]!.line).toBe(markedLine(yaml));
  });

  it('warns when a secret-named variable or header is written in the manifest, not read from the job', () => {
    const yaml = agent('claude-code', '      docs:\n        url: https://x.example/mcp\n        headers:\n          Authorization: Bearer abc123 # <-\n');
    const [w] = diagnostics(yaml, 'warning');
    expect(w!.message).toBe(
      'header `Authorization` of MCP server `docs` of agent `coder` is written in the manifest, which anyone who can read the repository reads; if it is a secret, pass it to the worker job with `env:` and write `${NAME}` here',
    );
    expect(w!.line).toBe(markedLine(yaml));
    expect(diagnostics(yaml.replace('Bearer abc123', '"Bearer ${DOCS_TOKEN}"'), 'warning')).toEqual([]);
    expect(diagnostics(agent('claude-code', '      docs:\n        command: npx\n        env: { MODE: read }\n'), 'warning')).toEqual([]);
  });
});
