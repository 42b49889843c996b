// cost_visible_steps_pct: of the steps each backend's stand-in CLI (tests/fixtures/fake-agents,
// kept true to the real CLIs by tests/agents/contract) runs through the worker with the sandbox's
// proxy holding its key, the share whose record shows the cost: the exact figure the proxy
// metered — equal to what the stand-in model API billed for that step — or, for a backend whose
// key stays with it (copilot), the reason it is not metered. A step showing `—`, or a figure other
// than the API's bill (a CLI's own claim), is not visible.
import { rmSync } from 'node:fs';
import { costOf, PRICES, priceFor } from '../../src/agents/prices.ts';
import { runWorker } from '../../src/agents/worker.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { stepCost } from '../../src/record/cost.ts';
import { fakes, makeRepo, makeTask } from '../../tests/agents/helpers.ts';
import { startModelStandIn, type ReceivedRequest, type StandInAnswer } from '../../tests/agents/sandbox/model-standin.ts';
import { FORMAT_ROUTES, usageAnswer, type Format } from '../../tests/agents/sandbox/usage-answers.ts';
import type { Figure } from './figure.ts';

const BACKENDS: { uses: Backend; model?: string }[] = [{ uses: 'claude-code' }, { uses: 'codex' }, { uses: 'gemini' }, { uses: 'opencode', model: 'anthropic/claude-sonnet-4-5' }, { uses: 'aider' }, { uses: 'copilot' }];
/** Steps per backend, each making this many model requests. */
const CALLS = [1, 2, 3];
const HOSTS = ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com'];

const formatOf = (path: string): Format => (path.startsWith('/v1/messages') ? 'anthropic' : path.startsWith('/v1/chat/') ? 'openai-chat' : path.startsWith('/v1/responses') ? 'openai-responses' : 'google');

export async function visibleSteps(): Promise<{ steps: number; visible: number; shown: string[] }> {
  let bill = 0;
  const answer = (r: ReceivedRequest): StandInAnswer => {
    const format = formatOf(r.path);
    const model = format === 'google' ? /\/models\/([^/:?]+)/.exec(r.path)![1]! : (JSON.parse(r.body) as { model: string }).model;
    const usage = { model, input: 3000, cacheRead: 1000, output: 700 };
    bill += costOf(priceFor(model, PRICES[FORMAT_ROUTES[format].api]).price, { input: 3000, cacheRead: 1000, cacheWrite: 0, output: 700 });
    return usageAnswer(format, usage, true);
  };
  const api = await startModelStandIn('127.0.0.2', undefined, answer);
  let steps = 0;
  let visible = 0;
  const shown: string[] = [];
  try {
    for (const { uses, model } of BACKENDS) {
      for (const calls of CALLS) {
        const repo = makeRepo();
        const f = fakes({
          ANTHROPIC_BASE_URL: `https://api.anthropic.com:${api.port}`,
          OPENAI_BASE_URL: `https://api.openai.com:${api.port}/v1`,
          GOOGLE_GEMINI_BASE_URL: `https://generativelanguage.googleapis.com:${api.port}`,
        });
        try {
          f.script([{ write: { 'src/a.ts': `export const a = ${calls};\n` }, modelCalls: calls, reply: { summary: 'done' } }]);
          bill = 0;
          const run = await runWorker(
            makeTask({
              base: repo.base,
              backend: { uses, env: {}, ...(model && { model }) },
              sandbox: { network: { mode: 'allow', allow: HOSTS.map((h) => `${h}:${api.port}`) }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false },
            }),
            { cwd: repo.dir, env: f.env, sandbox: { resolve: async (h) => (HOSTS.includes(h) ? ['127.0.0.2'] : []), internalHosts: HOSTS, modelCa: api.ca, fenceStatePath: `${f.dir}/no-fence.json` } },
          );
          const r = run.result;
          const cell = stepCost({ jobs: [{ attempt: 1 }] as never, costUsd: r.usage.costUsd, costEstimated: r.usage.costEstimated, costUnmetered: r.usage.costUnmetered });
          const exact = r.usage.costUsd !== undefined && bill > 0 && Math.abs(r.usage.costUsd - bill) < 1e-6 && !r.usage.costEstimated;
          const said = r.usage.costUnmetered !== undefined && cell !== '—';
          steps++;
          if (r.status === 'succeeded' && (exact || said)) visible++;
          shown.push(`${uses}×${calls}: ${r.status} ${cell} (billed $${bill.toFixed(6)})`);
        } finally {
          rmSync(repo.dir, { recursive: true, force: true });
          rmSync(f.dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await api.close();
  }
  return { steps, visible, shown };
}

export const costVisibleStepsPct: Figure = {
  name: 'cost_visible_steps_pct',
  description: "steps of each backend's stand-in CLI (6 backends × 3) through the worker and the proxy whose record shows the exact metered cost (= the stand-in API's bill) or why it is not metered",
  unit: '%',
  target: { op: '>=', value: 95 },
  async measure() {
    const { steps, visible, shown } = await visibleSteps();
    if (process.env.BATON_BENCH_VERBOSE) process.stderr.write(`${shown.join('\n')}\n`);
    return (visible / steps) * 100;
  },
};
