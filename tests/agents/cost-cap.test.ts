// The cost cap end to end through the worker: an agent whose model key the sandbox's proxy holds
// spends until the proxy refuses it at the task's cap. The attempt ends as a limit (`cost`),
// with "cost cap reached" in its error and the work so far kept; its cost is what the proxy
// metered, never what the CLI claimed of itself.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, priceFor, ANTHROPIC_PRICES } from '../../src/agents/prices.ts';
import { runWorker } from '../../src/agents/worker.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { stepCost } from '../../src/record/cost.ts';
import { fakes, makeRepo, makeTask } from './helpers.ts';
import { CANARY, startModelStandIn, type ModelStandIn } from './sandbox/model-standin.ts';
import { usageAnswer } from './sandbox/usage-answers.ts';

const SPEND_AGENT = fileURLToPath(new URL('./sandbox/spend-agent.mjs', import.meta.url));
const MODEL = 'claude-sonnet-4-5-20250929';
/** What each answer of the stand-in costs: 4,000 input and 800 output tokens of Sonnet 4.5. */
const PER_ANSWER = costOf(priceFor(MODEL, ANTHROPIC_PRICES).price, { input: 4000, cacheRead: 0, cacheWrite: 0, output: 800 });

let api: ModelStandIn;
let dir: string;
beforeAll(async () => {
  api = await startModelStandIn('127.0.0.2', undefined, () => usageAnswer('anthropic', { model: MODEL, input: 4000, output: 800 }, true));
  dir = mkdtempSync(join(tmpdir(), 'baton-cost-cap-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin/claude'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(SPEND_AGENT)} "$@"\n`, { mode: 0o755 });
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

async function spend(costCap: { usd: number; what: string } | null, calls = 50) {
  const repo = makeRepo();
  try {
    const before = api.received.length;
    const run = await runWorker(
      makeTask({
        base: repo.base,
        backend: { uses: 'claude-code', env: {} },
        outputsSchema: null,
        costCap,
        sandbox: { network: { mode: 'allow', allow: [`api.anthropic.com:${api.port}`] }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false },
      }),
      {
        cwd: repo.dir,
        env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, ANTHROPIC_API_KEY: CANARY, ANTHROPIC_BASE_URL: `https://api.anthropic.com:${api.port}`, SPEND_AGENT_CALLS: String(calls) },
        sandbox: { resolve: async (h) => (h === 'api.anthropic.com' ? ['127.0.0.2'] : []), internalHosts: ['api.anthropic.com'], modelCa: api.ca, fenceStatePath: join(dir, 'no-fence.json') },
      },
    );
    return { run, answered: api.received.length - before };
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
}

describe('the cost cap, through the worker', () => {
  it('ends the attempt at the cap as a cost limit, keeps the work, and records the metered cost', async () => {
    const { run, answered } = await spend({ usd: 0.25, what: "the run's max-cost-usd $0.25" });
    const r = run.result;
    expect(r.status).toBe('crashed');
    expect(r.error).toMatch(/^cost cap reached: this step may spend \$0\.25 on its model \(the run's max-cost-usd \$0\.25\)/);
    expect(r.error).toContain('the work so far is kept');
    expect(r.sandbox?.limit).toBe('cost');
    // The limit that stopped it, as `/baton retry <step> --budget` reads it: the work is a checkpoint.
    expect(r.limit).toBe('cost');
    // Every answer the API gave was charged; none past the cap was asked for.
    expect(r.usage.costUsd).toBeCloseTo(answered * PER_ANSWER, 6);
    expect(r.usage.costUsd).toBeLessThanOrEqual(0.25);
    expect(r.usage.costUsd! + PER_ANSWER).toBeGreaterThan(0.25 - PER_ANSWER);
    expect(r.usage.costEstimated).toBeUndefined();
    // The work of every answered step is kept.
    const progress = r.changes.find((c) => c.path === 'progress.txt');
    expect(progress).toBeDefined();
    expect(new TextDecoder().decode(run.files.get('progress.txt')).trim().split('\n')).toHaveLength(answered);
    expect(run.transcript).toContain('cost cap reached');
    // The CLI shows the refusal as it shows the API's own errors.
    expect(run.transcript).toMatch(/API Error: 402 \{\\"type\\":\\"error\\",\\"error\\":\{\\"type\\":\\"billing_error\\",\\"message\\":\\"baton: cost cap reached/);
  });

  it("without a cap, meters the cost anyway: the proxy's figure, not the $99 the CLI claims", async () => {
    const { run, answered } = await spend(null, 3);
    expect(run.result.status, run.result.error ?? '').toBe('succeeded');
    expect(answered).toBe(3);
    expect(run.result.usage).toEqual({ costUsd: Math.round(3 * PER_ANSWER * 1e6) / 1e6, inputTokens: 12_000, outputTokens: 2400 });
    expect(run.result.sandbox?.limit).toBeNull();
  });
});

describe("each backend's CLI at the cap, and the one the proxy cannot meter", () => {
  const HOSTS = ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com'];
  async function fakeStep(uses: Backend, costCap: { usd: number; what: string } | null, model?: string) {
    const repo = makeRepo();
    const f = fakes({ ANTHROPIC_BASE_URL: `https://api.anthropic.com:${api.port}`, OPENAI_BASE_URL: `https://api.openai.com:${api.port}/v1`, GOOGLE_GEMINI_BASE_URL: `https://generativelanguage.googleapis.com:${api.port}` });
    try {
      f.script([{ write: { 'src/a.ts': 'export const a = 2;\n' }, modelCalls: 1, reply: { summary: 'done' } }]);
      return await runWorker(
        makeTask({ base: repo.base, backend: { uses, env: {}, ...(model && { model }) }, costCap, sandbox: { network: { mode: 'allow', allow: HOSTS.map((h) => `${h}:${api.port}`) }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false } }),
        { cwd: repo.dir, env: f.env, sandbox: { resolve: async (h) => (HOSTS.includes(h) ? ['127.0.0.2'] : []), internalHosts: HOSTS, modelCa: api.ca, fenceStatePath: join(f.dir, 'no-fence.json') } },
      );
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
      rmSync(f.dir, { recursive: true, force: true });
    }
  }

  for (const [uses, model] of [['claude-code'], ['codex'], ['gemini'], ['opencode', 'anthropic/claude-sonnet-4-5'], ['aider']] as [Backend, string?][]) {
    it(`${uses}: the refusal reaches the CLI as an API error, and the attempt ends at its cost limit with its work`, async () => {
      const run = await fakeStep(uses, { usd: 0.0001, what: 'a test cap' }, model);
      expect(run.result.status).toBe('crashed');
      expect(run.result.error).toMatch(/^cost cap reached: this step may spend \$0\.0001 on its model \(a test cap\)/);
      expect(run.result.sandbox?.limit).toBe('cost');
      expect(run.transcript).toMatch(/402/);
      expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
    });
  }

  it("copilot keeps its key: its record says why there is no cost, instead of a bare dash", async () => {
    const run = await fakeStep('copilot', { usd: 0.0001, what: 'a test cap' });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.usage.costUnmetered).toBe('key-in-agent');
    expect(stepCost({ jobs: [{ attempt: 1 }] as never, costUsd: run.result.usage.costUsd, costUnmetered: run.result.usage.costUnmetered })).toBe('— (not metered: the CLI keeps its model key, and reports no cost)');
  });
});
