// Where the model key lives (src/agents/sandbox/proxy-keys.ts): each backend's CLI pointed at its
// model API on the proxy by its own setting, the agent's environment with placeholders only, the
// sandbox line saying where the key is, and a fork run refusing a backend that would hold it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../src/agents/backends/index.ts';
import { agentEnvironment, keyScrub, planModelKeys } from '../../src/agents/sandbox/proxy-keys.ts';
import { placeholderFor } from '../../src/agents/sandbox/proxy-models.ts';
import { runWorker } from '../../src/agents/worker.ts';
import { sandboxSummary } from '../../src/engine/sandbox-summary.ts';
import { parseSandboxReport } from '../../src/agents/sandbox-report.ts';
import type { SandboxRequest } from '../../src/engine/sandbox.ts';
import type { AgentSpec } from '../../src/manifest/types.ts';
import { fakes, makeRepo, makeTask } from './helpers.ts';
import { CANARY, startModelStandIn } from './sandbox/model-standin.ts';

/** The stand-in `claude` that calls its API as Claude Code does (tests/agents/sandbox/key-agent.mjs). */
const KEY_AGENT = fileURLToPath(new URL('./sandbox/key-agent.mjs', import.meta.url));

const BASE = 'http://127.0.0.1:4321/baton-model';
const urls = { anthropic: `${BASE}/anthropic`, openai: `${BASE}/openai`, google: `${BASE}/google` };
const opts = { tmpDir: '/tmp/x', writes: true, modelBaseUrls: urls };
const spec = (uses: AgentSpec['uses']): AgentSpec => ({ uses, env: {} });

describe("each CLI is pointed at its model API on the proxy by its own setting", () => {
  it('claude-code: ANTHROPIC_BASE_URL; gemini: GOOGLE_GEMINI_BASE_URL with the API-key sign-in; aider: litellm\'s base variables', () => {
    expect(backendFor('claude-code').invocation(spec('claude-code'), 'p', opts).env.ANTHROPIC_BASE_URL).toBe(urls.anthropic);
    const gemini = backendFor('gemini').invocation(spec('gemini'), 'p', opts);
    expect(gemini.env.GOOGLE_GEMINI_BASE_URL).toBe(urls.google);
    // The API-key sign-in named in its system settings: alone, the base URL selects a sign-in a headless run refuses.
    expect(JSON.parse(gemini.files![gemini.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH!]!)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } } });
    expect(backendFor('aider').invocation(spec('aider'), 'p', opts).env).toEqual({
      ANTHROPIC_API_BASE: urls.anthropic,
      OPENAI_API_BASE: `${urls.openai}/v1`,
      OPENAI_BASE_URL: `${urls.openai}/v1`,
      GEMINI_API_BASE: urls.google,
    });
  });

  it('codex: the `openai_base_url` key (its OPENAI_BASE_URL variable is no longer read)', () => {
    const argv = backendFor('codex').invocation(spec('codex'), 'p', opts).argv;
    expect(argv.slice(argv.indexOf('-c'), argv.indexOf('-c') + 2)).toEqual(['-c', `openai_base_url="${urls.openai}/v1"`]);
    expect(argv[argv.length - 1]).toBe('-');
  });

  it("opencode: each provider's baseURL in the runtime config, beside the manifest's MCP servers", () => {
    const mcpServers = { docs: { type: 'http' as const, url: 'https://mcp.example/x', headers: {} } };
    const inv = backendFor('opencode').invocation(spec('opencode'), 'p', { ...opts, modelBaseUrls: { anthropic: urls.anthropic }, mcpServers, configDir: '/tmp/c' });
    const config = JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT!);
    expect(config.provider).toEqual({ anthropic: { options: { baseURL: `${urls.anthropic}/v1` } } });
    expect(Object.keys(config.mcp)).toEqual(['docs']);
  });

  it('without held keys nothing is pointed anywhere', () => {
    expect(backendFor('claude-code').invocation(spec('claude-code'), 'p', { tmpDir: '/t', writes: true }).env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(backendFor('opencode').invocation(spec('opencode'), 'p', { tmpDir: '/t', writes: true }).env).toEqual({});
  });
});

describe('what the proxy holds and what stays in the agent', () => {
  const home = join(makeRepo().dir, 'home');
  afterAll(() => rmSync(join(home, '..'), { recursive: true, force: true }));

  it('API keys and OAuth tokens the CLI sends in a header are held; cloud switches, GitHub tokens and stored logins are not', () => {
    const claude = planModelKeys(backendFor('claude-code'), { ANTHROPIC_API_KEY: 'sk-a', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-b' }, true);
    expect(claude.held.map((k) => [k.name, k.api, k.slot, k.placeholder])).toEqual([
      ['ANTHROPIC_API_KEY', 'anthropic', 'x-api-key', 'baton-proxy-holds-the-key-ANTHROPIC_API_KEY'],
      ['CLAUDE_CODE_OAUTH_TOKEN', 'anthropic', 'bearer', 'baton-proxy-holds-the-key-CLAUDE_CODE_OAUTH_TOKEN'],
    ]);
    expect(claude.inAgent).toEqual([]);
    expect(planModelKeys(backendFor('claude-code'), { ANTHROPIC_API_KEY: 'sk-a', CLAUDE_CODE_USE_BEDROCK: '1' }, true).inAgent).toEqual(['CLAUDE_CODE_USE_BEDROCK (claude-code cannot be pointed at the proxy with it)']);
    expect(planModelKeys(backendFor('copilot'), { COPILOT_GITHUB_TOKEN: 'github_pat_x' }, true)).toEqual({ held: [], inAgent: ['COPILOT_GITHUB_TOKEN (copilot cannot be pointed at the proxy with it)'], others: [] });
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex/auth.json'), '{"tokens":{"access_token":"x"}}');
    expect(planModelKeys(backendFor('codex'), { HOME: home }, true).inAgent).toEqual(['the login in ~/.codex/auth.json']);
    // With a key held, the stored login is not handed over: not in the agent.
    expect(planModelKeys(backendFor('codex'), { HOME: home, CODEX_API_KEY: 'sk-c' }, true).inAgent).toEqual([]);
    expect(planModelKeys(backendFor('codex'), { CODEX_API_KEY: 'sk-c' }, false)).toEqual({ held: [], inAgent: ['CODEX_API_KEY (no proxy for this attempt)'], others: [] });
  });

  it("the agent's environment: the placeholder under the key's name and wherever else its value appears; other backends' keys gone", () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-secret-value', COPY: 'sk-ant-secret-value', HEADER: 'Bearer sk-ant-secret-value', OPENAI_API_KEY: 'sk-openai-other', MIXED: 'k=sk-openai-other', GITHUB_TOKEN: 'ghs_job', OTHER: 'x' };
    const plan = planModelKeys(backendFor('claude-code'), env, true);
    expect(plan.others).toEqual(['OPENAI_API_KEY']);
    expect(agentEnvironment(env, keyScrub(plan, env))).toEqual({
      ANTHROPIC_API_KEY: placeholderFor('ANTHROPIC_API_KEY'),
      COPY: placeholderFor('ANTHROPIC_API_KEY'),
      HEADER: `Bearer ${placeholderFor('ANTHROPIC_API_KEY')}`,
      MIXED: 'k=***',
      // The job's token is guarded as the job's (fork runs drop it), not as a model key.
      GITHUB_TOKEN: 'ghs_job',
      OTHER: 'x',
    });
    // A run step or a `command` agent: no model key at all.
    const none = planModelKeys(backendFor('command'), env, true);
    expect(Object.keys(agentEnvironment(env, keyScrub(none, env))).sort()).toEqual(['COPY', 'GITHUB_TOKEN', 'HEADER', 'MIXED', 'OTHER']);
    expect(Object.values(agentEnvironment(env, keyScrub(none, env))).join(' ')).not.toMatch(/sk-ant-secret-value|sk-openai-other/);
  });
});

describe('the worker: the key behind the proxy, the sandbox line, fork runs', () => {
  const cleanup: string[] = [];
  afterAll(() => cleanup.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const request: SandboxRequest = { network: { mode: 'allow', allow: ['api.anthropic.com'] }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false };

  async function attempt(uses: AgentSpec['uses'], env: NodeJS.ProcessEnv, sandbox: SandboxRequest) {
    const repo = makeRepo();
    const f = fakes(env);
    cleanup.push(repo.dir, f.dir);
    f.script([{ smuggle: uses === 'claude-code' ? 'ANTHROPIC_API_KEY' : 'COPILOT_GITHUB_TOKEN', reply: {} }]);
    const task = makeTask({ base: repo.base, backend: { uses, env: {} }, outputsSchema: null, sandbox });
    const run = await runWorker(task, { cwd: repo.dir, env: f.env, sandbox: { fenceStatePath: join(f.dir, 'no-fence.json') } });
    return { run, log: f.log() };
  }

  it('unfenced, the agent holds a placeholder, and the sandbox line says the key is still within its reach', async () => {
    const { run, log } = await attempt('claude-code', { ANTHROPIC_API_KEY: 'sk-ant-unfenced-key-123456' }, request);
    expect(log).toHaveLength(1);
    expect(run.result.sandbox?.modelKey).toEqual({ in: 'agent', why: "the worker's environment: the agent runs as the worker's user, without the fence" });
    expect(sandboxSummary(run.result.sandbox!)).toContain("key in the agent (the worker's environment");
  });

  it('a fork run refuses a backend whose credential the proxy cannot hold, before its CLI starts, saying what to change', async () => {
    const { run, log } = await attempt('copilot', { COPILOT_GITHUB_TOKEN: 'github_pat_fork_run_token' }, { ...request, required: true, fork: true });
    expect(log).toEqual([]);
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toMatch(/^a fork's pull request: copilot would hold its model credential where the agent can read it \(COPILOT_GITHUB_TOKEN \(copilot cannot be pointed at the proxy with it\)\)/);
    expect(run.result.error).toContain('the agent was not started');
  });
});

describe("the report's modelKey, read back from the artifact", () => {
  const base = { enforced: [], missing: [], refused: [], unreachable: [], limit: null };
  const fail = (why: string): never => {
    throw new Error(why);
  };
  it('keeps where the key was, bounded and printable, and refuses anything else', () => {
    expect(parseSandboxReport({ ...base, modelKey: { in: 'proxy' } }, fail).modelKey).toEqual({ in: 'proxy' });
    expect(parseSandboxReport({ ...base, modelKey: { in: 'agent', why: 'COPILOT_GITHUB_TOKEN\u001b[31m' } }, fail).modelKey!).toMatchObject({ in: 'agent' });
    expect(parseSandboxReport(base, fail).modelKey).toBeUndefined();
    expect(() => parseSandboxReport({ ...base, modelKey: { in: 'elsewhere' } }, fail)).toThrow(/sandbox\.modelKey/);
    expect(sandboxSummary({ ...base, enforced: ['egress-proxy', 'packet-filter', 'agent-user', 'resource-limits'], modelKey: { in: 'proxy' } })).toBe('sandbox: proxy, filter, own user, limits · key in the proxy');
  });
});

describe("the key goes where the worker job sends it, never where a step's env says", () => {
  it("a step's ANTHROPIC_BASE_URL (text an issue may fill) moves neither the CLI nor the key", async () => {
    const api = await startModelStandIn('127.0.0.2');
    const evil = await startModelStandIn('127.0.0.3');
    const repo = makeRepo();
    const dir = mkdtempSync(join(tmpdir(), 'baton-key-agent-'));
    try {
      mkdirSync(join(dir, 'bin'));
      writeFileSync(join(dir, 'bin/claude'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(KEY_AGENT)} "$@"\n`, { mode: 0o755 });
      const names: Record<string, string> = { 'api.anthropic.com': '127.0.0.2', 'evil.test': '127.0.0.3' };
      const env = { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, ANTHROPIC_API_KEY: CANARY, ANTHROPIC_BASE_URL: `https://api.anthropic.com:${api.port}` };
      const task = makeTask({
        base: repo.base,
        backend: { uses: 'claude-code', env: {} },
        outputsSchema: null,
        env: { ANTHROPIC_BASE_URL: `https://evil.test:${evil.port}`, KEY_AGENT_SAW: join(dir, 'saw.json') },
        // Both allowed: the allow-list is not what keeps the key from the step's host.
        sandbox: { network: { mode: 'allow', allow: [`api.anthropic.com:${api.port}`, `evil.test:${evil.port}`] }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false },
      });
      const run = await runWorker(task, {
        cwd: repo.dir,
        env,
        sandbox: { resolve: async (h) => (names[h] ? [names[h]] : []), internalHosts: Object.keys(names), modelCa: api.ca, fenceStatePath: join(dir, 'no-fence.json') },
      });
      expect(run.result.status, run.result.error ?? '').toBe('succeeded');
      expect(api.received[0]).toMatchObject({ host: `api.anthropic.com:${api.port}`, path: '/v1/messages', auth: { 'x-api-key': CANARY } });
      expect(evil.received).toEqual([]);
    } finally {
      await api.close();
      await evil.close();
      rmSync(repo.dir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

