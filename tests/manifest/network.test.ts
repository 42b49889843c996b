// `agents.<name>.network`, `sandbox`, `limits` and a step's `network` / `sandbox`: what a valid
// manifest normalises to, and each mistake refused (or warned about) at the line a person
// would fix, marked `# <-`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';
import { agentAllowList, credentialHosts, modelHosts } from '../../src/manifest/network.ts';
import { BACKENDS } from '../../src/manifest/types.ts';

function diagnostics(yaml: string, severity: 'error' | 'warning') {
  return loadWorkflowText('wf.yml', yaml).diagnostics.filter((d) => d.severity === severity);
}

function markedLine(yaml: string): number {
  const i = yaml.split('\n').findIndex((l) => l.includes('# <-'));
  if (i === -1) throw new Error('test case has no `# <-` marker');
  return i + 1;
}

function expectOne(yaml: string, severity: 'error' | 'warning', message: RegExp): void {
  const found = diagnostics(yaml, severity);
  expect(found.map((d) => d.message)).toEqual([expect.stringMatching(message)]);
  expect(found[0]).toMatchObject({ file: 'wf.yml', line: markedLine(yaml) });
}

const AGENT = `agents:
  coder:
    uses: claude-code
    network:
      allow: [registry.npmjs.org, "*.docs.example.com"]
`;

describe('a valid network, sandbox and limits', () => {
  it('normalises as written; `none` lifts a limit', () => {
    const r = loadWorkflowText(
      'wf.yml',
      `${AGENT}    sandbox: required
    limits: { cpu-seconds: 600, memory-mb: none }
steps:
  - id: a
    agent: coder
    prompt: hi
    network: { allow: [registry.npmjs.org] }
    sandbox: required
  - id: b
    run: make
    network: off
`,
    );
    expect(r.diagnostics).toEqual([]);
    const wf = r.loaded!.workflow;
    expect(wf.agents.coder).toMatchObject({ network: { allow: ['registry.npmjs.org', '*.docs.example.com'] }, sandbox: 'required', limits: { cpuSeconds: 600, memoryMb: null } });
    expect(wf.steps[0]).toMatchObject({ network: { allow: ['registry.npmjs.org'] }, sandbox: 'required' });
    expect(wf.steps[1]).toMatchObject({ network: 'off' });
  });

  it('leaves manifests without them (and their hash) as before', () => {
    const r = loadWorkflowText('wf.yml', 'agents:\n  coder: { uses: codex }\nsteps:\n  - id: a\n    agent: coder\n    prompt: hi\n');
    expect(Object.keys(r.loaded!.workflow.agents.coder!)).toEqual(['uses', 'env']);
    expect('network' in r.loaded!.workflow.steps[0]!).toBe(false);
  });

  it('lets a step keep a host the agent gets from its backend or an MCP server', () => {
    const yaml = `agents:
  coder:
    uses: claude-code
    mcp-servers:
      docs: { command: npx, args: [-y, "@acme/docs"] }
steps:
  - id: a
    agent: coder
    prompt: hi
    network: { allow: [api.anthropic.com, registry.npmjs.org] }
`;
    expect(loadWorkflowText('wf.yml', yaml).diagnostics).toEqual([]);
  });
});

describe('refused, at the line to fix', () => {
  it('a malformed pattern in an agent', () => {
    const yaml = `agents:
  coder:
    uses: claude-code
    network:
      allow:
        - https://registry.npmjs.org   # <-
steps:
  - id: a
    agent: coder
    prompt: hi
`;
    expectOne(yaml, 'error', /`network\.allow` of agent `coder`: "https:\/\/registry\.npmjs\.org" is a URL; write only the host/);
  });

  it('a wildcard on a whole top-level domain', () => {
    const yaml = `agents:
  coder:
    uses: codex
    network: { allow: ["*.com"] }   # <-
steps:
  - id: a
    agent: coder
    prompt: hi
`;
    expectOne(yaml, 'error', /"\*\.com" puts `\*` directly on `com`/);
  });

  it('a step that widens its agent’s list, naming what the agent allows', () => {
    const yaml = `${AGENT}steps:
  - id: a
    agent: coder
    prompt: hi
    network:
      allow:
        - docs.example.com   # <-
`;
    expectOne(
      yaml,
      'error',
      /step `a` allows `docs\.example\.com`, which its agent `coder` does not \(it allows: api\.anthropic\.com, registry\.npmjs\.org, \*\.docs\.example\.com\); a step's `network` can only narrow its agent's: add `docs\.example\.com` to `agents\.coder\.network\.allow`/,
    );
  });

  it('a review step that widens its reviewer’s list', () => {
    const yaml = `${AGENT}steps:
  - id: a
    agent: coder
    prompt: hi
  - id: r
    review: { agent: coder }
    network: { allow: [pypi.org] }   # <-
`;
    expectOne(yaml, 'error', /step `r` allows `pypi\.org`, which its agent `coder` does not/);
  });

  it('a step that loosens a required sandbox', () => {
    const yaml = `agents:
  coder: { uses: claude-code, sandbox: required }
steps:
  - id: a
    agent: coder
    prompt: hi
    sandbox: preferred   # <-
`;
    expectOne(yaml, 'error', /step `a` says `sandbox: preferred`, but its agent `coder` requires the sandbox; a step can tighten/);
  });

  it('network on a step that runs nothing', () => {
    const yaml = `agents:
  coder: { uses: claude-code }
steps:
  - id: a
    agent: coder
    prompt: hi
  - id: ok
    approve: {}
    network: off   # <-
`;
    expectOne(yaml, 'error', /`network` of step `ok` has no effect: only agent, review and run steps run anything, and this is a `approve` step/);
  });

  it('an unknown sandbox mode, a limit too low, a step network of the wrong kind (schema), saying only what is wrong', () => {
    const bad = loadWorkflowText(
      'wf.yml',
      'agents:\n  coder:\n    uses: codex\n    sandbox: strict\n    limits: { processes: 0 }\nsteps:\n  - id: a\n    agent: coder\n    prompt: hi\n    network: { allow: x }\n  - id: b\n    run: make\n    network: on\n',
    );
    expect(bad.diagnostics.map((d) => `${d.line}: ${d.message}`)).toEqual([
      '4: `sandbox` in agent `coder` must be one of required, preferred, not `strict`',
      '5: `processes` in agent `coder` is 0; it must be at least 16',
      '10: `allow` in step `a` must be a list, not the text `x`',
      '13: `network` in step `b` must be one of default, off, not `on`',
    ]);
  });
});

describe('warned about', () => {
  it('a wildcard on a suffix anyone can host under', () => {
    const yaml = `agents:
  coder:
    uses: claude-code
    network: { allow: ["*.amazonaws.com"] }   # <-
steps:
  - id: a
    agent: coder
    prompt: hi
`;
    expectOne(yaml, 'warning', /`\*\.amazonaws\.com` allows every host under `amazonaws\.com`, where anyone can host a bucket/);
  });

  it('network: off on an agent that needs its model API', () => {
    const yaml = `agents:
  coder: { uses: gemini }
steps:
  - id: a
    agent: coder
    prompt: hi
    network: off   # <-
`;
    expectOne(yaml, 'warning', /step `a` has `network: off`: its agent `coder` \(gemini\) cannot reach its model API/);
    expect(diagnostics(yaml.replace('gemini }', 'command, run: [./bot] }'), 'warning')).toEqual([]);
  });

  it('a model whose provider baton has no hosts for', () => {
    const yaml = `agents:
  coder:
    uses: opencode
    model: acme/big-1   # <-
steps:
  - id: a
    agent: coder
    prompt: hi
`;
    expectOne(yaml, 'warning', /baton does not know the model API hosts of `acme\/big-1` \(agent `coder`, opencode\); list them in `network\.allow`/);
  });
});

describe('the default hosts of docs/agents.md', () => {
  it('are the ones baton allows, backend by backend', () => {
    const doc = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('## Network'), doc.indexOf('## MCP servers'));
    for (const uses of BACKENDS) {
      const row = table.split('\n').find((l) => l.startsWith(`| ${uses} |`));
      expect(row, `a row for ${uses}`).toBeDefined();
      const modelCell = row!.split(' | ')[1]!;
      for (const host of agentAllowList({ uses, env: {}, ...(uses === 'command' && { run: ['x'] }) })) expect(modelCell, `${uses}: ${host}`).toContain(`\`${host}\``);
    }
  });
});

describe('model API hosts from the model and the credentials in env', () => {
  it('adds the endpoint a switch selects, and nothing for a region that is no region', () => {
    expect(credentialHosts('claude-code', { CLAUDE_CODE_USE_VERTEX: '1', CLOUD_ML_REGION: 'us-east5' })).toEqual(['us-east5-aiplatform.googleapis.com', 'oauth2.googleapis.com']);
    expect(credentialHosts('claude-code', { CLAUDE_CODE_USE_VERTEX: 'true', CLOUD_ML_REGION: 'global' })).toEqual(['aiplatform.googleapis.com', 'oauth2.googleapis.com']);
    expect(credentialHosts('claude-code', { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1.evil.com' })).toEqual([]);
    expect(credentialHosts('claude-code', { CLAUDE_CODE_USE_BEDROCK: '0', AWS_REGION: 'us-east-1' })).toEqual([]);
    expect(credentialHosts('claude-code', { ANTHROPIC_BASE_URL: 'https://llm.corp.example:8443/anthropic' })).toEqual(['llm.corp.example:8443']);
    expect(credentialHosts('gemini', { GOOGLE_GENAI_USE_GCA: 'true' })).toEqual(['cloudcode-pa.googleapis.com', 'oauth2.googleapis.com']);
    expect(credentialHosts('codex', { OPENAI_BASE_URL: 'javascript:alert(1)' })).toEqual([]);
  });

  it('follows the provider an aider or opencode model names', () => {
    expect(modelHosts({ uses: 'aider', model: 'sonnet', env: {} })).toEqual(['api.anthropic.com']);
    expect(modelHosts({ uses: 'aider', model: 'deepseek/deepseek-chat', env: {} })).toEqual(['api.deepseek.com']);
    expect(modelHosts({ uses: 'opencode', model: 'openai/gpt-5', env: {} })).toEqual(['api.openai.com']);
    expect(modelHosts({ uses: 'opencode', model: 'acme/big-1', env: {} })).toEqual([]);
    expect(modelHosts({ uses: 'command', run: ['./bot'], env: {} })).toEqual([]);
  });
});
