// The egress proxy's model path (src/agents/sandbox/proxy-models.ts): an agent's CLI, pointed at
// `http://127.0.0.1:<proxy>/baton-model/<api>`, holds only a placeholder; the stand-in model API
// (HTTPS, a certificate of the test's own for the real hosts' names) records what key reached it.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type EgressProxy } from '../../../src/agents/sandbox/proxy.ts';
import { MODEL_APIS, modelBaseUrl, placeholderFor, upstreamFor, type HeldKey, type ModelApi } from '../../../src/agents/sandbox/proxy-models.ts';
import { startModelStandIn, type ModelStandIn } from './model-standin.ts';

const CANARY = 'sk-ant-canary-7f3c9a1e5b2d4c6e8a0b';
const OAUTH = 'sk-ant-oat01-canary-oauth-token-2b4d6f';
const GEMINI = 'AIzaCanaryGeminiKey0123456789abcdef';
const CODEX = 'sk-proj-canary-codex-key-31415926';
const HOSTS = ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com'];

const keys: HeldKey[] = [
  { name: 'ANTHROPIC_API_KEY', api: 'anthropic', slot: 'x-api-key', value: CANARY, placeholder: placeholderFor('ANTHROPIC_API_KEY') },
  { name: 'CLAUDE_CODE_OAUTH_TOKEN', api: 'anthropic', slot: 'bearer', value: OAUTH, placeholder: placeholderFor('CLAUDE_CODE_OAUTH_TOKEN') },
  { name: 'GEMINI_API_KEY', api: 'google', slot: 'goog', value: GEMINI, placeholder: placeholderFor('GEMINI_API_KEY') },
  { name: 'CODEX_API_KEY', api: 'openai', slot: 'bearer', value: CODEX, placeholder: placeholderFor('CODEX_API_KEY') },
];

/** Each API's own host, on the stand-in's port (in production: 443). */
const upstreams = (port: number) => Object.fromEntries((Object.keys(MODEL_APIS) as ModelApi[]).map((a) => [a, { secure: true, host: MODEL_APIS[a], port, prefix: '' }]));

let api: ModelStandIn;
let proxy: EgressProxy;
let allowed: string[];

beforeAll(async () => {
  api = await startModelStandIn();
  allowed = [...HOSTS];
  proxy = await startProxy({
    allowed: (host, port) => allowed.includes(host) && port === api.port,
    resolve: async (host) => (HOSTS.includes(host) ? ['127.0.0.2'] : []),
    allowInternalAddresses: true,
    models: { keys, upstreams: upstreams(api.port), ca: api.ca },
  });
});
afterAll(async () => {
  await proxy.close();
  await api.close();
});

/** One request to the proxy as a CLI sends it: origin-form to its base URL (NO_PROXY covers loopback), or absolute-form through it. */
function send(path: string, headers: Record<string, string>, absolute = false): Promise<{ status: number; body: string }> {
  const url = new URL(path, `${proxy.url}/`);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: proxy.port, method: 'POST', path: absolute ? url.href : url.pathname + url.search, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end('{"model":"m"}');
  });
}

const last = () => api.received[api.received.length - 1]!;

describe('the model path of the egress proxy', () => {
  it('sends a request carrying the placeholder on to the model host over HTTPS with the real key in its place', async () => {
    const base = modelBaseUrl(proxy.url, 'anthropic');
    const r = await send(`${base}/v1/messages`, { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') });
    expect(r).toEqual({ status: 200, body: '{"ok":true}' });
    expect(last()).toMatchObject({ host: `api.anthropic.com:${api.port}`, method: 'POST', path: '/v1/messages', auth: { 'x-api-key': CANARY }, body: '{"model":"m"}' });
  });

  it('puts an OAuth token where the CLI sends it as a bearer token, and a Gemini key from `?key=` into its header', async () => {
    await send(`${modelBaseUrl(proxy.url, 'anthropic')}/v1/messages?beta=true`, { authorization: `Bearer ${placeholderFor('CLAUDE_CODE_OAUTH_TOKEN')}` });
    expect(last()).toMatchObject({ path: '/v1/messages?beta=true', auth: { authorization: `Bearer ${OAUTH}` } });
    await send(`${modelBaseUrl(proxy.url, 'google')}/v1beta/models/g:generateContent?key=${placeholderFor('GEMINI_API_KEY')}&alt=sse`, {});
    expect(last()).toMatchObject({ host: `generativelanguage.googleapis.com:${api.port}`, path: '/v1beta/models/g:generateContent?alt=sse', auth: { 'x-goog-api-key': GEMINI } });
  });

  it('serves a client that sends even loopback through the proxy (absolute-form to the proxy itself)', async () => {
    await send(`${modelBaseUrl(proxy.url, 'anthropic')}/v1/messages`, { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') }, true);
    expect(last()).toMatchObject({ host: `api.anthropic.com:${api.port}`, auth: { 'x-api-key': CANARY } });
  });

  it("takes a WebSocket on the model path (codex's Responses transport) to the API with the key in its place, then passes bytes both ways", async () => {
    const socket = connect(proxy.port, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString();
      socket.emit('got');
    });
    socket.write(`GET /baton-model/openai/v1/responses HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${placeholderFor('CODEX_API_KEY')}\r\n\r\n`);
    while (!got.includes('\r\n\r\n')) await once(socket, 'got');
    expect(got).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    socket.write('frame|');
    while (!got.endsWith('frame|')) await once(socket, 'got');
    socket.destroy();
    expect(last()).toMatchObject({ host: `api.openai.com:${api.port}`, method: 'GET (upgrade websocket)', path: '/v1/responses', auth: { authorization: `Bearer ${CODEX}` } });
  });

  it('adds no key to a request that carries anything but the placeholder in its slot, and passes on no credential the agent sent', async () => {
    const before = api.received.length;
    const anthropic = `${modelBaseUrl(proxy.url, 'anthropic')}/v1/messages`;
    await send(anthropic, { 'x-api-key': 'sk-ant-the-agents-own-guess' });
    await send(anthropic, { authorization: `Bearer ${placeholderFor('ANTHROPIC_API_KEY')}` }); // the API key's placeholder in the bearer slot
    await send(anthropic, { 'x-api-key': placeholderFor('GEMINI_API_KEY') }); // another API's key
    await send(`${modelBaseUrl(proxy.url, 'openai')}/v1/responses`, { authorization: `Bearer ${placeholderFor('ANTHROPIC_API_KEY')}` }); // another host
    const got = api.received.slice(before);
    expect(got).toHaveLength(4);
    for (const r of got) expect(r.auth).toEqual({});
  });

  it('refuses a model host the step does not allow, and a path that names no model API', async () => {
    const before = api.received.length;
    allowed = HOSTS.filter((h) => h !== 'api.anthropic.com');
    try {
      const r = await send(`${modelBaseUrl(proxy.url, 'anthropic')}/v1/messages`, { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') });
      expect(r.status).toBe(403);
    } finally {
      allowed = [...HOSTS];
    }
    expect((await send('/baton-model/evil.test/steal', {})).status).toBe(400);
    expect(api.received.length).toBe(before);
    expect(proxy.report().refused).toContainEqual({ host: `api.anthropic.com:${api.port}`, count: 1 });
  });

  it('sends no key to a host whose certificate it does not trust', async () => {
    const untrusting = await startProxy({
      allowed: () => true,
      resolve: async () => ['127.0.0.2'],
      allowInternalAddresses: true,
      models: { keys, upstreams: upstreams(api.port) },
    });
    try {
      const before = api.received.length;
      const r = await new Promise<number>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port: untrusting.port, method: 'POST', path: '/baton-model/anthropic/v1/messages', headers: { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') } }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        req.end('{}');
      });
      expect(r).toBe(502);
      expect(api.received.length).toBe(before);
      expect(untrusting.report().unreachable).toContainEqual({ host: `api.anthropic.com:${api.port}`, error: 'the TLS handshake failed' });
    } finally {
      await untrusting.close();
    }
  });

  it("sends on to the gateway the job's base URL names, its path kept, with the key in its place", async () => {
    const gateway = await startProxy({
      allowed: (host, port) => host === 'api.anthropic.com' && port === api.port,
      resolve: async () => ['127.0.0.2'],
      allowInternalAddresses: true,
      models: { keys, upstreams: { anthropic: upstreamFor('anthropic', { ANTHROPIC_BASE_URL: `https://api.anthropic.com:${api.port}/gateway/` }) }, ca: api.ca },
    });
    try {
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port: gateway.port, method: 'POST', path: '/baton-model/anthropic/v1/messages', headers: { 'x-api-key': placeholderFor('ANTHROPIC_API_KEY') } }, (res) => res.resume().on('end', resolve));
        req.end('{}');
      });
      expect(last()).toMatchObject({ host: `api.anthropic.com:${api.port}`, path: '/gateway/v1/messages', auth: { 'x-api-key': CANARY } });
    } finally {
      await gateway.close();
    }
  });
});

describe('where a model API is reached', () => {
  it("is the API's host on 443 unless the job names a gateway; OpenAI's /v1 is the CLI's, not the gateway's", () => {
    expect(upstreamFor('anthropic', {})).toEqual({ secure: true, host: 'api.anthropic.com', port: 443, prefix: '' });
    expect(upstreamFor('openai', { OPENAI_BASE_URL: 'http://llm.corp.example:4000/openai/v1/' })).toEqual({ secure: false, host: 'llm.corp.example', port: 4000, prefix: '/openai' });
    expect(upstreamFor('google', { GOOGLE_GEMINI_BASE_URL: 'not a url', GEMINI_API_BASE: 'https://g.example' })).toEqual({ secure: true, host: 'g.example', port: 443, prefix: '' });
    expect(upstreamFor('anthropic', { ANTHROPIC_BASE_URL: 'file:///etc/passwd' })).toEqual({ secure: true, host: 'api.anthropic.com', port: 443, prefix: '' });
  });
});
