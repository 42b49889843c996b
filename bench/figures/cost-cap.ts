// The cost cap, measured where the money is spent (src/agents/sandbox/proxy-meter.ts): agents
// spending through the sandbox's proxy against a stand-in model API that streams usage, and the
// API's own bill compared with the cap.
//
// cost_cap_overshoot_pct: caps of $0.10 to $5; for each, each API format (Anthropic Messages,
// OpenAI Chat Completions and Responses, Gemini) with three agents' requests in flight at once,
// each looping until the proxy refuses it. Requests of 1–40 kB, most naming their output limit
// (one in five none: the meter's default reservation), answers of a seeded random share of it,
// part of the prompt read from the cache. The stand-in bills each answer it sent from the price
// table (input at one token per four bytes of the request); the figure is the largest
// (bill − cap) / cap over every run, 0 when no run passed its cap.
import { costOf, PRICES, priceFor } from '../../src/agents/prices.ts';
import { CostMeter } from '../../src/agents/sandbox/proxy-meter.ts';
import { MODEL_APIS, modelBaseUrl, placeholderFor, type HeldKey, type ModelApi } from '../../src/agents/sandbox/proxy-models.ts';
import { startProxy, type EgressProxy } from '../../src/agents/sandbox/proxy.ts';
import { startModelStandIn, type ReceivedRequest, type StandInAnswer } from '../../tests/agents/sandbox/model-standin.ts';
import { FORMAT_ROUTES, usageAnswer, type Format } from '../../tests/agents/sandbox/usage-answers.ts';
import type { Figure } from './figure.ts';

const CAPS = [0.1, 0.25, 0.5, 1, 2, 5];
const MODELS: Record<Format, string> = { anthropic: 'claude-sonnet-4-5-20250929', 'openai-chat': 'gpt-5-mini', 'openai-responses': 'gpt-5.1-codex', google: 'gemini-2.5-pro' };
const IN_FLIGHT = 3;
/** Output tokens an answer to a request that names no limit may run to. */
const UNNAMED_MAX = 16_000;

/** A small seeded generator (mulberry32): the same runs every time. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const formatOf = (path: string): Format => (path.startsWith('/v1/messages') ? 'anthropic' : path.startsWith('/v1/chat/') ? 'openai-chat' : path.startsWith('/v1/responses') ? 'openai-responses' : 'google');

const keys: HeldKey[] = [
  { name: 'ANTHROPIC_API_KEY', api: 'anthropic', slot: 'x-api-key', value: 'sk-ant-bench', placeholder: placeholderFor('ANTHROPIC_API_KEY') },
  { name: 'OPENAI_API_KEY', api: 'openai', slot: 'bearer', value: 'sk-bench', placeholder: placeholderFor('OPENAI_API_KEY') },
  { name: 'GEMINI_API_KEY', api: 'google', slot: 'goog', value: 'AIza-bench', placeholder: placeholderFor('GEMINI_API_KEY') },
];
const AUTH: Record<ModelApi, Record<string, string>> = {
  anthropic: { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') },
  openai: { authorization: `Bearer ${placeholderFor('OPENAI_API_KEY')}` },
  google: { 'x-goog-api-key': placeholderFor('GEMINI_API_KEY') },
};

export interface CapRun {
  cap: number;
  format: Format;
  /** What the stand-in API billed for the answers it sent. */
  billed: number;
  requests: number;
}

/** Every cap × format run; the stand-in's bill of each. */
export async function capRuns(): Promise<CapRun[]> {
  const random = seeded(33);
  let bill = 0;
  let answered = 0;
  const answer = (r: ReceivedRequest): StandInAnswer => {
    const format = formatOf(r.path);
    const body = JSON.parse(r.body) as { model?: string; max_tokens?: number; max_completion_tokens?: number; max_output_tokens?: number; generationConfig?: { maxOutputTokens?: number } };
    const model = body.model ?? MODELS.google;
    const limit = body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? body.generationConfig?.maxOutputTokens ?? UNNAMED_MAX;
    const prompt = Math.ceil(Buffer.byteLength(r.body) / 4);
    const cacheRead = Math.floor(prompt * random() * 0.8);
    const usage = { model, input: prompt - cacheRead, cacheRead, output: Math.floor(limit * random()) };
    bill += costOf(priceFor(model, PRICES[FORMAT_ROUTES[format].api]).price, { input: usage.input, cacheRead, cacheWrite: 0, output: usage.output });
    answered++;
    return usageAnswer(format, usage, true);
  };
  const api = await startModelStandIn('127.0.0.2', undefined, answer);
  const runs: CapRun[] = [];
  try {
    for (const cap of CAPS) {
      for (const format of Object.keys(MODELS) as Format[]) {
        const meter = new CostMeter({ usd: cap, what: `a bench cap of $${cap}` });
        const upstreams = Object.fromEntries((Object.keys(MODEL_APIS) as ModelApi[]).map((a) => [a, { secure: true, host: MODEL_APIS[a], port: api.port, prefix: '' }]));
        const proxy = await startProxy({ allowed: (_h, port) => port === api.port, resolve: async () => ['127.0.0.2'], allowInternalAddresses: true, models: { keys, upstreams, ca: api.ca, meter } });
        bill = 0;
        answered = 0;
        try {
          await Promise.all(Array.from({ length: IN_FLIGHT }, () => agent(proxy, format, random)));
        } finally {
          await proxy.close();
        }
        runs.push({ cap, format, billed: bill, requests: answered });
      }
    }
  } finally {
    await api.close();
  }
  return runs;
}

/** One agent: requests until the proxy refuses one (a 402), at most 2,000. */
async function agent(proxy: EgressProxy, format: Format, random: () => number): Promise<void> {
  const route = FORMAT_ROUTES[format];
  const model = MODELS[format];
  for (let i = 0; i < 2000; i++) {
    const text = 'x'.repeat(1000 + Math.floor(random() * 39_000));
    const max = random() < 0.2 ? undefined : 500 + Math.floor(random() * 7500);
    const body =
      format === 'anthropic' ? { model, max_tokens: max ?? 4096, stream: true, messages: [{ role: 'user', content: text }] }
      : format === 'openai-chat' ? { model, stream: true, ...(max && { max_completion_tokens: max }), messages: [{ role: 'user', content: text }] }
      : format === 'openai-responses' ? { model, stream: true, ...(max && { max_output_tokens: max }), input: text }
      : { contents: [{ role: 'user', parts: [{ text }] }], ...(max && { generationConfig: { maxOutputTokens: max } }) };
    const status = await post(`${modelBaseUrl(proxy.url, route.api)}${route.path(model, true)}`, AUTH[route.api], JSON.stringify(body));
    if (status === 402) return;
    if (status !== 200) throw new Error(`the stand-in model API answered ${status}`);
  }
  throw new Error(`the proxy never refused ${format} under its cap`);
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await res.arrayBuffer();
  return res.status;
}

let cached: Promise<CapRun[]> | undefined;

export const costCapOvershootPct: Figure = {
  name: 'cost_cap_overshoot_pct',
  description: 'largest spend past the cap a stand-in model API billed, over caps of $0.10–$5 × 4 API formats, 3 requests in flight, streamed usage, each run until the proxy refuses',
  unit: '%',
  target: { op: '<=', value: 5 },
  async measure() {
    const runs = await (cached ??= capRuns());
    return Math.max(0, ...runs.map((r) => ((r.billed - r.cap) / r.cap) * 100));
  },
};
