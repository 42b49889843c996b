// The agent sandbox's egress proxy (src/agents/sandbox/proxy.ts): what an agent behind it can
// reach and what the worker is told. Everything runs on loopback: stand-ins for the model API
// listen on 127.0.0.x and a resolver handed to the proxy maps the test's names to them.
import { once } from 'node:events';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { proxyEnv } from '../../../src/agents/sandbox/proxy-env.ts';
import { MALFORMED, startProxy, TOO_MANY_CONNECTIONS, type EgressProxy, type ProxyOptions } from '../../../src/agents/sandbox/proxy.ts';

const API = 'api.anthropic.test';
const NAMES: Record<string, string[]> = {
  [API]: ['127.0.0.2'],
  'registry.npmjs.test': ['127.0.0.3'],
  'rebound.test': ['127.0.0.2'],
};

/** The test's DNS: its names, and nothing else (like a name that does not exist). */
async function resolve(host: string): Promise<string[]> {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listening<S extends Server | HttpServer>(server: S, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => server.close(r)));
  return (server.address() as AddressInfo).port;
}

/** A TLS-less stand-in for the API: echoes every byte, and counts connections. */
async function echoServer(host = '127.0.0.2'): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    n++;
    sockets.push(s);
    s.on('error', () => {});
    s.pipe(s);
  });
  cleanups.push(() => sockets.forEach((s) => s.destroy()));
  return { port: await listening(server, host), connections: () => n };
}

/**
 * The step's allow-list as a plain predicate, read like the manifest's entries (an entry without
 * a port admits 443 and 80); the worker wires in the manifest's own matcher.
 */
function allowList(...entries: string[]): ProxyOptions['allowed'] {
  return (host, port) => entries.some((e) => e === `${host}:${port}` || (e === host && (port === 443 || port === 80)));
}

async function proxy(o: Partial<ProxyOptions> & Pick<ProxyOptions, 'allowed'>): Promise<EgressProxy> {
  const p = await startProxy({ resolve, allowInternalAddresses: true, connectTimeoutMs: 2000, ...o });
  cleanups.push(() => p.close());
  return p;
}

/** A raw client of the proxy: what it sent back, by event, never by sleeping. */
class Client {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  closed: Promise<void>;
  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('error', () => {});
    this.socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      this.socket.emit('received');
    });
    this.closed = once(this.socket, 'close').then(() => undefined);
  }
  get text(): string {
    return this.received.toString('latin1');
  }
  /** Resolves once what was received contains `needle` (or the connection closed). */
  async until(needle: string): Promise<string> {
    while (!this.text.includes(needle) && !this.socket.destroyed) await Promise.race([once(this.socket, 'received'), this.closed]);
    return this.text;
  }
  send(data: string | Buffer): this {
    this.socket.write(data);
    return this;
  }
  /** Everything until the proxy closed the connection. */
  async all(): Promise<string> {
    await this.closed;
    return this.text;
  }
}

const connectLine = (authority: string): string => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

describe('egress proxy: CONNECT', () => {
  it('tunnels bytes both ways to an allowed host, resolved by the proxy', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`) });
    const c = new Client(p.port);
    // Bytes sent right behind the request head (a client that does not wait for the 200) get through too.
    c.send(`${connectLine(`${API}:${echo.port}`)}early|`);
    expect(await c.until('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\n/);
    c.send('ping|');
    expect(await c.until('ping|')).toBe('HTTP/1.1 200 Connection Established\r\n\r\nearly|ping|');
    // Half a megabyte each way: the tunnel keeps up with back-pressure, and loses nothing.
    const before = c.text.length;
    c.send(Buffer.alloc(512 * 1024, 'x'));
    expect((await c.until('x'.repeat(512 * 1024))).length - before).toBe(512 * 1024);
    expect(p.report()).toEqual({ refused: [], unreachable: [] });
  });

  it('refuses a host not in the allow-list with 403 naming it, and counts it by what an allow-list entry would say', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(API) });
    for (const target of ['registry.npmjs.test:443', 'registry.npmjs.test:443', `${API}:${echo.port}`, 'REGISTRY.npmjs.test.:80']) {
      const answer = await new Client(p.port).send(connectLine(target)).all();
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(answer).toContain("is not in this step's network allow-list");
    }
    const answer = await new Client(p.port).send(connectLine('registry.npmjs.test:443')).all();
    expect(answer).toContain("baton: registry.npmjs.test is not in this step's network allow-list");
    expect(echo.connections()).toBe(0);
    expect(p.report().refused).toEqual([
      { host: 'registry.npmjs.test', count: 4 },
      { host: `${API}:${echo.port}`, count: 1 },
    ]);
  });

  it('reports an allowed host whose name does not resolve, or whose port is closed, as unreachable', async () => {
    const closed = createServer();
    const closedPort = await listening(closed, '127.0.0.2');
    await new Promise((r) => closed.close(r)); // nothing listens there any more
    const p = await proxy({ allowed: allowList('nowhere.test', `${API}:${closedPort}`) });
    const dns = await new Client(p.port).send(connectLine('nowhere.test:443')).all();
    expect(dns).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(dns).toContain('nowhere.test is allowed but could not be reached: DNS lookup failed (ENOTFOUND)');
    expect(await new Client(p.port).send(connectLine(`${API}:${closedPort}`)).all()).toMatch(/^HTTP\/1\.1 502/);
    expect(p.report()).toEqual({
      refused: [],
      unreachable: [
        { host: 'nowhere.test', error: 'DNS lookup failed (ENOTFOUND)' },
        { host: `${API}:${closedPort}`, error: `connecting to 127.0.0.2 port ${closedPort} failed (ECONNREFUSED)` },
      ],
    });
  });

  it('takes a host off the unreachable list when a later connection to it succeeds', async () => {
    const echo = await echoServer();
    let up = false;
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`), resolve: async (h) => (up ? resolve(h) : Promise.reject(Object.assign(new Error('EAI_AGAIN'), { code: 'EAI_AGAIN' }))) });
    await new Client(p.port).send(connectLine(`${API}:${echo.port}`)).all();
    expect(p.report().unreachable).toEqual([{ host: `${API}:${echo.port}`, error: 'DNS lookup failed (EAI_AGAIN)' }]);
    up = true;
    const c = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
    expect(await c.until('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
    expect(p.report().unreachable).toEqual([]);
  });

  // Only loopback here, even if the guard broke: which addresses count as internal (metadata and
  // link-local among them) is held by internal-address.test.ts; this holds that the proxy asks it.
  it('by default does not connect an allowed name that resolves to an internal address; an allowed literal it does', async () => {
    const echo = await echoServer();
    const p = await startProxy({ resolve, allowed: allowList(`rebound.test:${echo.port}`, `127.0.0.2:${echo.port}`) });
    cleanups.push(() => p.close());
    const rebound = await new Client(p.port).send(connectLine(`rebound.test:${echo.port}`)).all();
    expect(rebound).toMatch(/^HTTP\/1\.1 502/);
    expect(rebound).toContain('resolves only to 127.0.0.2: loopback, link-local or metadata addresses');
    expect(echo.connections()).toBe(0);
    const literal = new Client(p.port).send(connectLine(`127.0.0.2:${echo.port}`));
    expect(await literal.until('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
    expect(p.report().unreachable.map((u) => u.host)).toEqual([`rebound.test:${echo.port}`]);
  });

  it('refuses an IP literal the allow-list does not name, and names that getaddrinfo would read as addresses', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: () => true });
    expect(await new Client(p.port).send(connectLine(`127.0.0.2:${echo.port}`)).until('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
    const strict = await proxy({ allowed: allowList(API) });
    expect(await new Client(strict.port).send(connectLine(`127.0.0.2:${echo.port}`)).all()).toMatch(/^HTTP\/1\.1 403/);
    for (const disguised of ['2130706434', '127.2', '0x7f.0.0.2', '0177.0.0.2', '127.000.0.2']) {
      expect(await new Client(p.port).send(connectLine(`${disguised}:${echo.port}`)).all(), disguised).toMatch(/^HTTP\/1\.1 400/);
    }
    expect(echo.connections()).toBe(1);
  });
});

describe('egress proxy: what it does not take', () => {
  it('refuses malformed requests, garbage and SOCKS with 400 and counts them as (malformed)', async () => {
    const p = await proxy({ allowed: () => true });
    const attempts: (string | Buffer)[] = [
      connectLine(API), // no port
      connectLine(`user@${API}:443`),
      connectLine(`${API}:0`),
      connectLine(`${API}:65536`),
      connectLine(`bad_name.test:443`),
      'CONNECT api.anthropic.test:443 HTTP/2.0\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: api.anthropic.test\r\n\r\n', // origin form: the proxy is no web server
      'GET https://api.anthropic.test/ HTTP/1.1\r\nHost: api.anthropic.test\r\n\r\n', // the proxy does not originate TLS
      'hello\r\n\r\n',
      Buffer.from([0x05, 0x01, 0x00]), // SOCKS5 greeting
      Buffer.from([0x04, 0x01, 0x01, 0xbb, 127, 0, 0, 2, 0]), // SOCKS4 connect
    ];
    for (const a of attempts) {
      const answer = await new Client(p.port).send(a).all();
      expect(answer, String(a)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    }
    expect(p.report().refused).toEqual([{ host: MALFORMED, count: attempts.length }]);
  });

  it('cuts a request head flood at the cap with 431, and goes on serving', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`), maxHeaderBytes: 4096 });
    const c = new Client(p.port).send(`CONNECT ${API}:${echo.port} HTTP/1.1\r\n`);
    // Keeps sending headers; the proxy must answer and close long before this ends.
    for (let i = 0; i < 2000 && !c.socket.destroyed && c.text === ''; i++) {
      if (!c.socket.write(`X-Flood-${i}: ${'a'.repeat(100)}\r\n`)) await Promise.race([once(c.socket, 'drain'), c.closed]);
    }
    expect(await c.all()).toMatch(/^HTTP\/1\.1 431 /);
    expect(p.report().refused).toEqual([{ host: MALFORMED, count: 1 }]);
    expect(await new Client(p.port).send(connectLine(`${API}:${echo.port}`)).until('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
  });

  it('closes a client that sends its request head too slowly, and not the tunnels that sent theirs', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`), headerTimeoutMs: 200 });
    const tunnel = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
    await tunnel.until('\r\n\r\n');
    const c = new Client(p.port).send('CONNECT api.anthr');
    const started = Date.now();
    expect(await c.all()).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(p.report().refused).toEqual([{ host: MALFORMED, count: 1 }]);
    expect(await tunnel.send('still there').until('still there')).toMatch(/still there$/);
  });

  it('closes a tunnel nothing has moved through for the idle time, not one that keeps moving', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`), idleTimeoutMs: 300 });
    const busy = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
    const quiet = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
    await busy.until('\r\n\r\n');
    await quiet.until('\r\n\r\n');
    const started = Date.now();
    for (let i = 0; !quiet.socket.destroyed; i++) {
      busy.send(`${i}|`);
      await Promise.race([busy.until(`${i}|`), quiet.closed]);
      if (!quiet.socket.destroyed) await new Promise((r) => setTimeout(r, 50)); // the busy client's pace, not a wait for the result
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(busy.socket.destroyed).toBe(false);
  });

  it('holds at most maxConnections connections at once and counts the ones it closed', async () => {
    const echo = await echoServer();
    const p = await proxy({ allowed: allowList(`${API}:${echo.port}`), maxConnections: 3 });
    const open = [0, 1, 2].map(() => new Client(p.port).send(connectLine(`${API}:${echo.port}`)));
    for (const c of open) await c.until('\r\n\r\n');
    const extra = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
    expect(await extra.all()).toBe('');
    expect(p.report().refused).toEqual([{ host: TOO_MANY_CONNECTIONS, count: 1 }]);
    open[0]!.socket.destroy();
    await open[0]!.closed;
    // Once one closed, the next is taken (the proxy sees the close a moment later: retry on refusal).
    for (;;) {
      const next = new Client(p.port).send(connectLine(`${API}:${echo.port}`));
      if ((await next.until('\r\n\r\n')).startsWith('HTTP/1.1 200')) break;
    }
  });

  it('keeps at most maxReportedHosts hosts in the report and sums the rest', async () => {
    const p = await proxy({ allowed: () => false, maxReportedHosts: 3 });
    for (const n of [1, 2, 3, 4, 5, 1, 5]) await new Client(p.port).send(connectLine(`host${n}.test:443`)).all();
    expect(p.report().refused).toEqual([
      { host: 'host1.test', count: 2 },
      { host: 'host2.test', count: 1 },
      { host: 'host3.test', count: 1 },
      { host: '(other hosts)', count: 3 },
    ]);
  });
});

describe('egress proxy: plain HTTP', () => {
  async function apiServer(): Promise<{ port: number; seen: IncomingMessage[] }> {
    const seen: IncomingMessage[] = [];
    const server = createHttpServer((req, res) => {
      seen.push(req);
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => res.writeHead(200, { 'x-upstream': 'yes', connection: 'x-secret-hop', 'x-secret-hop': 'drop me' }).end(`${req.method} ${req.url} host=${req.headers.host} body=${body}`));
    });
    return { port: await listening(server, '127.0.0.2'), seen };
  }

  /** Node's own HTTP client through the proxy: an absolute-form request. */
  function viaProxy(proxyPort: number, url: string, o: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
    return new Promise((resolveAnswer, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: proxyPort, method: o.method ?? 'GET', path: url, headers: o.headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolveAnswer({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end(o.body);
    });
  }

  it('forwards an absolute-form request to an allowed host, re-sent with the checked Host and without hop-by-hop headers', async () => {
    const api = await apiServer();
    const p = await proxy({ allowed: allowList(`${API}:${api.port}`) });
    const answer = await viaProxy(p.port, `http://${API}:${api.port}/v1/messages?x=1`, {
      method: 'POST',
      body: 'hello',
      headers: { host: 'evil.test', 'proxy-authorization': 'Basic c2VjcmV0', connection: 'x-private', 'x-private': 'hop', 'x-kept': 'end-to-end' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`POST /v1/messages?x=1 host=${API}:${api.port} body=hello`);
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(answer.headers['x-secret-hop']).toBeUndefined();
    const seen = api.seen[0]!.headers;
    expect(seen['x-kept']).toBe('end-to-end');
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen['x-private']).toBeUndefined();
  });

  it('refuses plain HTTP to a host not in the allow-list with 403', async () => {
    const api = await apiServer();
    const p = await proxy({ allowed: allowList(API) });
    const answer = await viaProxy(p.port, `http://${API}:${api.port}/`);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(`${API}:${api.port} is not in this step's network allow-list`);
    expect(api.seen).toHaveLength(0);
    expect(p.report().refused).toEqual([{ host: `${API}:${api.port}`, count: 1 }]);
  });

  it('refuses what request smuggling needs: Content-Length with Transfer-Encoding, obsolete line folding', async () => {
    const api = await apiServer();
    const p = await proxy({ allowed: allowList(`${API}:${api.port}`) });
    const url = `http://${API}:${api.port}/`;
    const smuggle = `POST ${url} HTTP/1.1\r\nHost: ${API}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /admin HTTP/1.1\r\nHost: ${API}\r\n\r\n`;
    const folded = `GET ${url} HTTP/1.1\r\nHost: ${API}\r\nX-Folded: a\r\n b\r\n\r\n`;
    for (const attempt of [smuggle, folded]) expect(await new Client(p.port).send(attempt).all()).toMatch(/^HTTP\/1\.1 400 /);
    expect(api.seen).toHaveLength(0);
    expect(p.report().refused).toEqual([{ host: MALFORMED, count: 2 }]);
  });
});

describe('egress proxy: real clients', () => {
  it("undici's ProxyAgent (what Node CLIs use for fetch behind HTTPS_PROXY) reaches an allowed host through it", async () => {
    const server = createHttpServer((req, res) => res.end(`hello from ${req.headers.host}`));
    const port = await listening(server, '127.0.0.2');
    const p = await proxy({ allowed: allowList(`${API}:${port}`) });
    const dispatcher = new ProxyAgent(p.url);
    cleanups.push(() => dispatcher.close());
    const ok = await undiciRequest(`http://${API}:${port}/`, { dispatcher });
    expect(await ok.body.text()).toBe(`hello from ${API}:${port}`);
    await expect(undiciRequest(`http://registry.npmjs.test:${port}/`, { dispatcher })).rejects.toThrow(/403/);
    expect(p.report().refused).toEqual([{ host: `registry.npmjs.test:${port}`, count: 1 }]);
  });

  it('gives the agent the proxy in every spelling clients read, and loopback outside it', () => {
    expect(proxyEnv('http://127.0.0.1:4567')).toEqual({
      HTTPS_PROXY: 'http://127.0.0.1:4567',
      https_proxy: 'http://127.0.0.1:4567',
      HTTP_PROXY: 'http://127.0.0.1:4567',
      http_proxy: 'http://127.0.0.1:4567',
      ALL_PROXY: 'http://127.0.0.1:4567',
      all_proxy: 'http://127.0.0.1:4567',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
      NODE_USE_ENV_PROXY: '1',
    });
  });
});
