// The sandbox request each dispatched attempt carries (DispatchWorker.sandbox): what the
// agent (or a run step's command) may reach, whether the sandbox is required, the limits.
// Driven through the engine, so every way an attempt is dispatched is covered.
import { describe, expect, it } from 'vitest';
import { RUN_STEP_HOSTS } from '../../src/manifest/network.ts';
import type { AgentSpec, Workflow } from '../../src/manifest/types.ts';
import { BREAKER_THRESHOLD } from '../../src/engine/breaker.ts';
import { agent, review, run, workflow } from './builder.ts';
import { Run } from './harness.ts';

const coder: AgentSpec = {
  uses: 'claude-code',
  env: {},
  mcpServers: { docs: { command: 'npx', args: ['-y', '@acme/docs'] }, search: { url: 'https://mcp.example.com:8443/mcp' } },
  network: { allow: ['*.docs.example.com', 'pypi.org'] },
};

function started(wf: Workflow): Run {
  const r = new Run(wf);
  r.start();
  return r;
}

describe('an agent step', () => {
  it("gets its backend's model API, its MCP servers' hosts and its network.allow, with the default limits", () => {
    const r = started(workflow([agent('a')], { agents: { coder } }));
    expect(r.dispatch('a').sandbox).toEqual({
      network: { mode: 'allow', allow: ['api.anthropic.com', 'registry.npmjs.org', 'mcp.example.com:8443', '*.docs.example.com', 'pypi.org'] },
      limits: { cpuSeconds: 14_400, memoryMb: null, processes: 4096 },
      required: false,
    });
  });

  it('gets nothing beyond its model API when the manifest names nothing (a `command` agent: nothing at all)', () => {
    const r = started(
      workflow([agent('a'), agent('b', { agent: 'bot' })], { agents: { coder: { uses: 'codex', env: {} }, bot: { uses: 'command', run: ['./bot'], env: {} } } }),
    );
    expect(r.dispatch('a').sandbox!.network).toEqual({ mode: 'allow', allow: ['api.openai.com'] });
    r.complete('a');
    expect(r.dispatch('b').sandbox!.network).toEqual({ mode: 'allow', allow: [] });
  });

  it('adds the endpoint its credential switches select', () => {
    const bedrock: AgentSpec = { uses: 'claude-code', env: { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'eu-west-1' } };
    const r = started(workflow([agent('a')], { agents: { coder: bedrock } }));
    expect(r.dispatch('a').sandbox!.network.allow).toEqual(['api.anthropic.com', 'bedrock-runtime.eu-west-1.amazonaws.com']);
  });

  it('is narrowed by the step: its own list (what the agent allows) plus the model API', () => {
    const r = started(workflow([agent('a', { network: { allow: ['pypi.org', 'api.docs.example.com'] } })], { agents: { coder } }));
    expect(r.dispatch('a').sandbox!.network).toEqual({ mode: 'allow', allow: ['api.anthropic.com', 'pypi.org', 'api.docs.example.com'] });
  });

  it('never widened by a step, even one the validator did not see', () => {
    const r = started(workflow([agent('a', { network: { allow: ['evil.example.net', '*.example.com', 'pypi.org'] } })], { agents: { coder } }));
    expect(r.dispatch('a').sandbox!.network.allow).toEqual(['api.anthropic.com', 'pypi.org']);
  });

  it('reaches nothing with `network: off`, not even its model API', () => {
    const r = started(workflow([agent('a', { network: 'off' })], { agents: { coder } }));
    expect(r.dispatch('a').sandbox!.network).toEqual({ mode: 'off', allow: [] });
  });

  it('is required when the agent or the step says so, and takes the agent’s limits over the defaults', () => {
    const strict: AgentSpec = { ...coder, sandbox: 'required', limits: { cpuSeconds: 600, processes: null } };
    const r = started(workflow([agent('a'), agent('b', { agent: 'other', sandbox: 'required' })], { agents: { coder: strict, other: { uses: 'codex', env: {} } } }));
    expect(r.dispatch('a').sandbox).toMatchObject({ required: true, limits: { cpuSeconds: 600, memoryMb: null, processes: null } });
    r.complete('a');
    expect(r.dispatch('b').sandbox).toMatchObject({ required: true, limits: { cpuSeconds: 14_400, processes: 4096 } });
  });
});

describe('other attempts', () => {
  it('a fallback runs with its own list, narrowed by the step the same way', () => {
    const agents = { coder: { ...coder, fallback: 'backup' }, backup: { uses: 'codex' as const, env: {}, network: { allow: ['pypi.org'] } } };
    const r = started(workflow([agent('a', { writes: false, network: { allow: ['pypi.org', '*.docs.example.com'] } })], { agents }));
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      const d = r.dispatch('a');
      r.send({ type: 'worker.failed', step: 'a', slot: d.slot, attempt: d.attempt, reason: 'crashed', error: 'quota', checkpoint: null, infrastructure: 'quota' });
    }
    const d = r.dispatch('a');
    expect(d.agent).toBe('backup');
    expect(d.sandbox!.network.allow).toEqual(['api.openai.com', 'pypi.org']);
  });

  it('a reviewer gets the review step’s narrowing, a fix round the fix step’s agent and network', () => {
    const wf = workflow([agent('impl', { network: { allow: ['pypi.org'] } }), review('review', { fix: 'impl', network: 'off' })], {
      agents: { coder, reviewer: { uses: 'codex', env: {} } },
    });
    const r = started(wf);
    r.complete('impl');
    expect(r.dispatch('review').sandbox!.network).toEqual({ mode: 'off', allow: [] });
    r.finish('review', { approved: false, summary: 'no', comments: [] });
    expect(r.dispatch('review', 'fix-1').sandbox!.network.allow).toEqual(['api.anthropic.com', 'pypi.org']);
  });

  it('a run step reaches the package registries by default, exactly its list when it has one, nothing with `off`', () => {
    const r = started(workflow([run('a'), run('b', { network: { allow: ['ci.example.com:8443'] }, sandbox: 'required' }), run('c', { network: 'off' })]));
    expect(r.dispatch('a').sandbox).toEqual({ network: { mode: 'allow', allow: [...RUN_STEP_HOSTS] }, limits: { cpuSeconds: 14_400, memoryMb: null, processes: 4096 }, required: false });
    r.complete('a');
    expect(r.dispatch('b').sandbox).toMatchObject({ network: { mode: 'allow', allow: ['ci.example.com:8443'] }, required: true });
    r.complete('b');
    expect(r.dispatch('c').sandbox!.network).toEqual({ mode: 'off', allow: [] });
  });
});
