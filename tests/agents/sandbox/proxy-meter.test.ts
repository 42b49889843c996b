// The cost of an agent's model traffic, metered in the sandbox's proxy (src/agents/sandbox/
// proxy-meter.ts, model-usage.ts) and priced from the one price table (src/agents/prices.ts):
// each API's usage read from its answers, whole and streamed; the answer passed on as it comes;
// the next request refused in the API's own error shape once the cap is reached.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTHROPIC_PRICES, costOf, GOOGLE_PRICES, OPENAI_PRICES, priceFor } from '../../../src/agents/prices.ts';
import { UsageReader } from '../../../src/agents/sandbox/model-usage.ts';
import { CostMeter, DEFAULT_MAX_OUTPUT } from '../../../src/agents/sandbox/proxy-meter.ts';
import { MODEL_APIS, modelBaseUrl, placeholderFor, type HeldKey, type ModelApi } from '../../../src/agents/sandbox/proxy-models.ts';
import { startProxy, type EgressProxy } from '../../../src/agents/sandbox/proxy.ts';
import { startModelStandIn, type ModelStandIn, type ReceivedRequest, type StandInAnswer } from './model-standin.ts';
import { FORMAT_ROUTES, usageAnswer, type Format } from './usage-answers.ts';

const FORMATS: Format[] = ['anthropic', 'openai-chat', 'openai-responses', 'google'];
const MODELS: Record<Format, string> = { anthropic: 'claude-sonnet-4-5-20250929', 'openai-chat': 'gpt-5-mini-2025-08-07', 'openai-responses': 'gpt-5.1-codex', google: 'gemini-2.5-pro' };
const TABLES = { anthropic: ANTHROPIC_PRICES, openai: OPENAI_PRICES, google: GOOGLE_PRICES };

/** What a reader makes of an answer fed to it one byte-range at a time (chunks split mid-line, mid-character). */
function read(format: Format, a: StandInAnswer, split = 7): ReturnType<UsageReader['end']> {
  const reader = new UsageReader(FORMAT_ROUTES[format].api, a.contentType);
  const bytes = Buffer.from(a.chunks.join(''));
  for (let i = 0; i < bytes.length; i += split) reader.write(bytes.subarray(i, i + split));
  return reader.end();
}

describe("each API's usage, read from its answer", () => {
  const usage = { input: 1200, cacheRead: 3000, cacheWrite: 0, output: 450 };
  for (const format of FORMATS) {
    for (const stream of [false, true]) {
      it(`${format}, ${stream ? 'streamed' : 'whole'}`, () => {
        const cacheWrite = format === 'anthropic' ? 500 : 0;
        const r = read(format, usageAnswer(format, { model: MODELS[format], ...usage, cacheWrite }, stream));
        expect(r).toEqual({ tokens: { ...usage, cacheWrite }, model: MODELS[format], final: true });
      });
    }
  }

  it("Gemini's streamGenerateContent as one JSON array: the last chunk's totals", () => {
    const r = read('google', usageAnswer('google', { model: 'gemini-2.5-flash', input: 10, output: 9 }, true, true), 5);
    expect(r).toEqual({ tokens: { input: 10, cacheRead: 0, cacheWrite: 0, output: 9 }, model: 'gemini-2.5-flash', final: true });
  });

  it('an Anthropic stream cut before its message_delta is not final (its output is unknown)', () => {
    const a = usageAnswer('anthropic', { model: 'claude-haiku-4-5', input: 10, output: 900 }, true);
    const r = read('anthropic', { ...a, chunks: a.chunks.slice(0, 3) });
    expect(r.final).toBe(false);
    expect(r.tokens.input).toBe(10);
  });

  it('an answer that is not JSON reads as nothing, not final', () => {
    const r = read('openai-chat', { status: 200, contentType: 'application/json', chunks: ['<html>gateway error</html>'] });
    expect(r.final).toBe(false);
  });
});

describe('the price table', () => {
  it("prices an API's dated model names at their family's rates", () => {
    expect(priceFor('claude-sonnet-4-5-20250929', ANTHROPIC_PRICES)).toMatchObject({ known: true, price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } });
    expect(priceFor('claude-opus-4-1-20250805', ANTHROPIC_PRICES).price).toMatchObject({ input: 15, output: 75 });
    expect(priceFor('claude-opus-4-5', ANTHROPIC_PRICES).price).toMatchObject({ input: 5, output: 25 });
    expect(priceFor('gpt-5.1-codex-mini', OPENAI_PRICES).price).toMatchObject({ input: 0.25, output: 2 });
    expect(priceFor('gpt-5-2025-08-07', OPENAI_PRICES).price).toMatchObject({ input: 1.25, output: 10 });
    expect(priceFor('models/gemini-2.5-flash', GOOGLE_PRICES).price).toMatchObject({ input: 0.3, output: 2.5 });
  });

  it('names its source and the date it was read, for every entry', () => {
    for (const table of Object.values(TABLES)) for (const p of Object.values(table)) expect(p).toMatchObject({ source: expect.stringMatching(/^https:\/\//), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it('prices an unknown model (or none named) at the highest rates of its API, and says it does not know it', () => {
    const unknown = priceFor('claude-mystery-9', ANTHROPIC_PRICES);
    expect(unknown.known).toBe(false);
    expect(unknown.price).toMatchObject({ input: 15, output: 75 });
    expect(priceFor(undefined, GOOGLE_PRICES).price.output).toBe(18);
    // `gpt-5` must not take `gpt-5.1`'s price, nor `gpt-5.1-codex` `gpt-5.1-codex-mini`'s.
    expect(priceFor('gpt-5.9', OPENAI_PRICES).known).toBe(false);
    expect(priceFor('gpt-5.1-codex-mini', OPENAI_PRICES).price.input).toBe(0.25);
  });

  it("applies a long-context tier above its threshold (Gemini 2.5 Pro past 200k prompt tokens)", () => {
    const p = priceFor('gemini-2.5-pro', GOOGLE_PRICES).price;
    expect(costOf(p, { input: 200_000, cacheRead: 0, cacheWrite: 0, output: 1000 })).toBeCloseTo(0.25 + 0.01, 6);
    expect(costOf(p, { input: 200_001, cacheRead: 0, cacheWrite: 0, output: 1000 })).toBeCloseTo(200_001 * 2.5e-6 + 0.015, 6);
  });
});

describe('the proxy meters what passes and refuses past the cap', () => {
  const keys: HeldKey[] = [
    { name: 'ANTHROPIC_API_KEY', api: 'anthropic', slot: 'x-api-key', value: 'sk-ant-meter-test', placeholder: placeholderFor('ANTHROPIC_API_KEY') },
    { name: 'CODEX_API_KEY', api: 'openai', slot: 'bearer', value: 'sk-meter-test', placeholder: placeholderFor('CODEX_API_KEY') },
    { name: 'GEMINI_API_KEY', api: 'google', slot: 'goog', value: 'AIza-meter-test', placeholder: placeholderFor('GEMINI_API_KEY') },
  ];
  const HEADERS: Record<ModelApi, Record<string, string>> = {
    anthropic: { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') },
    openai: { authorization: `Bearer ${placeholderFor('CODEX_API_KEY')}` },
    google: { 'x-goog-api-key': placeholderFor('GEMINI_API_KEY') },
  };
  let api: ModelStandIn;
  let next: (r: ReceivedRequest) => StandInAnswer = () => ({ status: 200, contentType: 'application/json', chunks: ['{}'] });

  beforeAll(async () => {
    api = await startModelStandIn('127.0.0.2', undefined, (r) => next(r));
  });
  afterAll(() => api.close());

  async function withProxy<T>(meter: CostMeter, f: (proxy: EgressProxy) => Promise<T>): Promise<T> {
    const upstreams = Object.fromEntries((Object.keys(MODEL_APIS) as ModelApi[]).map((a) => [a, { secure: true, host: MODEL_APIS[a], port: api.port, prefix: '' }]));
    const proxy = await startProxy({ allowed: (_h, port) => port === api.port, resolve: async () => ['127.0.0.2'], allowInternalAddresses: true, models: { keys, upstreams, ca: api.ca, meter } });
    try {
      return await f(proxy);
    } finally {
      await proxy.close();
    }
  }

  /** A CLI's request on the proxy's model path; `onFirstByte` runs when the answer's first bytes arrive. */
  function call(proxy: EgressProxy, apiName: ModelApi, path: string, body: unknown, onFirstByte?: () => void): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    const url = new URL(`${modelBaseUrl(proxy.url, apiName)}${path}`);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: proxy.port, method: 'POST', path: url.pathname + url.search, headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, br', ...HEADERS[apiName] } }, (res) => {
        let text = '';
        res.once('data', () => onFirstByte?.());
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  for (const format of FORMATS) {
    it(`charges a streamed ${format} answer what its usage says, by the table`, async () => {
      const meter = new CostMeter(null);
      const u = { model: MODELS[format], input: 2000, cacheRead: 1000, output: 300 };
      next = () => usageAnswer(format, u, true);
      const route = FORMAT_ROUTES[format];
      const r = await withProxy(meter, (proxy) => call(proxy, route.api, route.path(u.model, true), { model: u.model, max_tokens: 1000, stream: true }));
      expect(r.status).toBe(200);
      const expected = costOf(priceFor(u.model, TABLES[route.api]).price, { input: 2000, cacheRead: 1000, cacheWrite: 0, output: 300 });
      expect(meter.report()).toMatchObject({ costUsd: expected, requests: 1, inputTokens: 3000, outputTokens: 300, unread: 0, capReached: false });
      // Uncompressed, so that its usage can be read.
      expect(api.received.at(-1)!.body).toContain(u.model);
    });
  }

  it('passes a stream on as it comes: the first event reaches the CLI before the API has sent the last', async () => {
    const meter = new CostMeter(null);
    let firstSeen = false;
    let seenBeforeLast: boolean | null = null;
    const answer = usageAnswer('anthropic', { model: 'claude-haiku-4-5', input: 10, output: 20 }, true);
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    next = () => ({
      ...answer,
      beforeLast: async () => {
        // Waits on the event, not on time: the CLI has the first bytes while the answer is still open.
        await first;
        seenBeforeLast = firstSeen;
      },
    });
    const r = await withProxy(meter, (proxy) =>
      call(proxy, 'anthropic', '/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 100 }, () => {
        firstSeen = true;
        arrived();
      }),
    );
    expect(r.status).toBe(200);
    expect(seenBeforeLast).toBe(true);
    expect(meter.report().outputTokens).toBe(20);
  });

  it('refuses the request that could pass the cap, in the API’s error shape, and every one after it; the API never sees them', async () => {
    const model = 'claude-sonnet-4-5';
    const meter = new CostMeter({ usd: 0.1, what: "what is left of the run's max-cost-usd $0.10" });
    // Each answer: 2,000 input and 1,000 output tokens at $3 / $15 per 1M = $0.021. A request
    // reserves its body and 1,000 output tokens (≈ $0.015 + input): four fit under $0.10, the fifth does not.
    next = () => usageAnswer('anthropic', { model, input: 2000, output: 1000 }, true);
    const results = await withProxy(meter, async (proxy) => {
      const out = [];
      for (let i = 0; i < 7; i++) out.push(await call(proxy, 'anthropic', '/v1/messages', { model, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'x'.repeat(6000) }] }));
      return out;
    });
    const statuses = results.map((r) => r.status);
    const firstRefused = statuses.indexOf(402);
    expect(firstRefused).toBeGreaterThan(0);
    expect(statuses.slice(firstRefused).every((s) => s === 402)).toBe(true);
    const refusal = JSON.parse(results[firstRefused]!.body);
    expect(refusal).toMatchObject({ type: 'error', error: { type: 'billing_error', message: expect.stringContaining('cost cap reached') } });
    const report = meter.report();
    expect(report).toMatchObject({ capReached: true, requests: firstRefused, refused: 7 - firstRefused });
    expect(report.costUsd).toBeLessThanOrEqual(0.1);
    expect(api.received.filter((r) => r.path === '/v1/messages').length).toBeGreaterThanOrEqual(firstRefused);
  });

  it('refuses in OpenAI’s and Google’s error shapes too', async () => {
    for (const [apiName, path, shape] of [
      ['openai', '/v1/responses', { error: { code: 'cost_cap_reached', message: expect.stringContaining('cost cap reached') } }],
      ['google', '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', { error: { code: 402, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('cost cap reached') } }],
    ] as const) {
      const meter = new CostMeter({ usd: 0.0001, what: 'a test cap' });
      const before = api.received.length;
      const r = await withProxy(meter, (proxy) => call(proxy, apiName, path, { model: 'gpt-5', input: 'hello' }));
      expect(r.status).toBe(402);
      expect(JSON.parse(r.body)).toMatchObject(shape);
      expect(api.received.length).toBe(before);
    }
  });

  it('reserves DEFAULT_MAX_OUTPUT for a request that names no limit, and charges an answer it cannot read its reservation', async () => {
    const meter = new CostMeter(null);
    next = () => ({ status: 200, contentType: 'application/json', chunks: ['not json'] });
    await withProxy(meter, (proxy) => call(proxy, 'openai', '/v1/chat/completions', { model: 'gpt-5' }));
    const body = JSON.stringify({ model: 'gpt-5' });
    const reserve = costOf(priceFor('gpt-5', OPENAI_PRICES).price, { input: Math.ceil(body.length / 3), cacheRead: 0, cacheWrite: 0, output: DEFAULT_MAX_OUTPUT });
    expect(meter.report()).toMatchObject({ costUsd: reserve, unread: 1 });
  });

  it('answers a WebSocket upgrade on the model path 426 (its frames could not be metered), so codex takes HTTPS at once', async () => {
    const meter = new CostMeter({ usd: 1, what: 'a test cap' });
    const before = api.received.length;
    const head = await withProxy(meter, (proxy) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(proxy.port, '127.0.0.1', () =>
          socket.write(`GET /baton-model/openai/v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${placeholderFor('CODEX_API_KEY')}\r\n\r\n`),
        );
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      }),
    );
    expect(head).toMatch(/^HTTP\/1\.1 426 Upgrade Required/);
    expect(api.received.length).toBe(before);
  });

  it('charges an error answer nothing, and names an unknown model it priced at the highest rates', async () => {
    const meter = new CostMeter(null);
    next = () => ({ status: 529, contentType: 'application/json', chunks: ['{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'] });
    await withProxy(meter, (proxy) => call(proxy, 'anthropic', '/v1/messages', { model: 'claude-next-1', max_tokens: 10 }));
    expect(meter.report()).toMatchObject({ costUsd: 0, unknownModels: ['anthropic: claude-next-1'] });
  });
});
