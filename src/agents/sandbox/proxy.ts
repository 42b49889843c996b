// The agent sandbox's egress proxy: the one way out for an agent's traffic (HTTPS_PROXY & co.
// point here; the packet filter drops everything else). It runs in the worker's process, which
// the agent's user cannot read, and admits a connection only to a host the step's allow-list
// names (`allowed`, the manifest's host patterns):
//
// - CONNECT host:port (HTTPS, and anything else tunnelled): checked, resolved here, connected,
//   `200 Connection Established`, then bytes both ways, never looked into (no TLS interception).
// - Absolute-form plain HTTP (`GET http://host/path`): checked the same, then re-sent by Node's
//   HTTP client, one request per upstream connection, hop-by-hop headers dropped.
// - Anything else (origin-form requests, `https://` absolute-form, garbage, SOCKS bytes, an
//   oversized or too slow request head): 4xx and closed, counted as `(malformed)`.
//
// Requests are read by Node's HTTP parser in its strict default: it refuses obsolete line
// folding, Content-Length together with Transfer-Encoding, bad characters — what request
// smuggling needs — and the proxy never forwards the client's bytes as they came on plain HTTP.
// Refusals are counted by the allow-list entry that would admit them (`targetKey`); allowed
// hosts that could not be reached are reported with why (`report()`).
//
// - The model path (`/baton-model/<api>/…`, origin-form, or absolute-form to the proxy itself):
//   the agent's model API, sent on over HTTPS to that API's host with the credential the proxy
//   holds for it (proxy-models.ts). The agent's environment holds only a placeholder. With a
//   meter (proxy-meter.ts), each request's body is read first (its worst-case cost reserved, or
//   the request refused at the cost cap in the API's own error shape), and each answer's usage
//   is read as it passes (model-usage.ts); the answer is never held back. Answers come
//   uncompressed (`Accept-Encoding: identity`) so that their usage can be read, and WebSockets
//   are refused with 426 (their frames are not read): codex falls back to HTTPS at once.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { UsageReader } from './model-usage.ts';
import { capRefusalBody, COST_CAP_STATUS, type Admitted, type CostMeter } from './proxy-meter.ts';
import { MODEL_APIS, MODEL_PATH, modelTarget, withHeldKey, type HeldKey, type ModelApi, type ModelUpstream } from './proxy-models.ts';
import { ProxyTally, type ProxyReport } from './proxy-report.ts';
import { parseAuthority, targetKey, type Target } from './proxy-target.ts';
import { connectUpstream, systemResolve, Unreachable, type Resolve } from './upstream.ts';

export const MALFORMED = '(malformed)';
export const TOO_MANY_CONNECTIONS = '(too many connections)';

export interface ProxyOptions {
  /** The step's allow-list: host (lower case; IPv6 without brackets) and port. */
  allowed: (host: string, port: number) => boolean;
  /** Address to listen on (default 127.0.0.1: the packet filter lets the agent reach loopback only). */
  host?: string;
  port?: number;
  /** Name → addresses (default: the system's resolver, `getaddrinfo`). */
  resolve?: Resolve;
  /**
   * Connect an allowed *name* to loopback, link-local or metadata addresses (internal-address.ts).
   * Off by default; tests whose stand-ins for real hosts listen on 127.0.0.x turn it on, for
   * every name or (a predicate) for their stand-in names only.
   */
  allowInternalAddresses?: boolean | ((host: string) => boolean);
  /** DNS lookup and connect of one upstream connection together (default 10 s). */
  connectTimeoutMs?: number;
  /** For a client to send its whole request head (default 10 s). */
  headerTimeoutMs?: number;
  /** A tunnel or forwarded request with no byte either way for this long is closed (default 5 min). */
  idleTimeoutMs?: number;
  /** Request line and headers together (default 16 KiB). */
  maxHeaderBytes?: number;
  /** Client connections open at once, tunnels included; more are closed at once (default 256). */
  maxConnections?: number;
  /** Distinct hosts kept in each list of the report (default 100). */
  maxReportedHosts?: number;
  /**
   * The model credentials the proxy holds for the attempt, and where each API's requests go (its
   * host on 443, or a gateway the job names: proxy-models.ts upstreamFor). TLS is checked against
   * the system's certificate authorities; tests' stand-ins bring their own (`ca`).
   */
  models?: { keys: readonly HeldKey[]; upstreams?: Partial<Record<ModelApi, ModelUpstream>>; ca?: string | Buffer; meter?: CostMeter };
}

/** A metered model request's body is read whole before it goes out (its cost reserved); a larger one is refused. */
export const MAX_MODEL_REQUEST = 64 * 1024 * 1024;

export interface EgressProxy {
  port: number;
  /** `http://<host>:<port>`, for `proxyEnv`. */
  url: string;
  report(): ProxyReport;
  /** Stops listening and closes every connection, tunnels included. */
  close(): Promise<void>;
}

/** Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function plainResponse(status: number, reason: string, body: string): string {
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

const refusedBody = (key: string): string => `baton: ${key} is not in this step's network allow-list; the proxy refused it.\n`;
const unreachableBody = (key: string, why: string): string => `baton: ${key} is allowed but could not be reached: ${why}.\n`;

/** Answers on a socket the HTTP server no longer reads (CONNECT), then lets it go even if the client never closes. */
function answerAndClose(socket: Socket, status: number, reason: string, body: string): void {
  socket.end(plainResponse(status, reason, body));
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** Bytes both ways until either side closes or nothing moves for `idleMs`. */
function splice(a: Socket, b: Socket, idleMs: number): void {
  const end = (): void => {
    clearTimeout(idle);
    a.destroy();
    b.destroy();
  };
  const idle = setTimeout(end, idleMs);
  for (const s of [a, b]) {
    s.on('data', () => idle.refresh());
    s.on('error', end);
    s.on('close', end);
  }
  a.pipe(b);
  b.pipe(a);
}

/** The forwarded headers of a plain HTTP request or response: hop-by-hop ones and those `Connection` names dropped. */
function endToEnd(raw: string[], connection: string | string[] | undefined): string[] {
  const named = new Set(
    String(connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase()),
  );
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name) && name !== 'host') out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** The Host of a forwarded request: the authority the proxy checked, whatever Host the client sent. */
function hostHeader(t: Target): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return t.port === 80 ? host : `${host}:${t.port}`;
}

/** The authority of an absolute-form `http://` request target; null for any other form. */
function absoluteHttp(url: string): { authority: string; path: string } | null {
  const m = /^http:\/\/([^/?#]*)([/?][^#]*)?$/i.exec(url);
  if (!m) return null;
  const rest = m[2] ?? '/';
  return { authority: m[1]!, path: rest.startsWith('?') ? `/${rest}` : rest };
}

/** The request's body, or null when it is larger than a metered model request may be (or the client went away). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_MODEL_REQUEST) {
        req.pause();
        return resolve(null);
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(size > MAX_MODEL_REQUEST ? null : Buffer.concat(chunks)));
    req.resume();
  });
}

/** Reads an answer's usage as it passes to the agent, and charges it once it has ended (or never came: null). */
function tapUsage(meter: CostMeter, admitted: Admitted): (answer: IncomingMessage | null) => void {
  let settled = false;
  let answered = false;
  return (answer) => {
    // Once an answer came, its own end (or cut) settles it: a later connection error does not.
    if (settled || answered) return;
    if (answer === null) {
      settled = true;
      return meter.settle(admitted, 0, null);
    }
    answered = true;
    const reader = new UsageReader(admitted.api, answer.headers['content-type']);
    answer.on('data', (chunk: Buffer) => reader.write(chunk));
    const done = (): void => {
      if (settled) return;
      settled = true;
      meter.settle(admitted, answer.statusCode ?? 0, reader.end());
    };
    answer.once('end', done);
    answer.once('close', done);
  };
}

export async function startProxy(o: ProxyOptions): Promise<EgressProxy> {
  const tally = new ProxyTally(o.maxReportedHosts ?? 100);
  const idleMs = o.idleTimeoutMs ?? 300_000;
  const headerMs = o.headerTimeoutMs ?? 10_000;
  const upstream = { resolve: o.resolve ?? systemResolve, allowInternalAddresses: o.allowInternalAddresses ?? false, connectTimeoutMs: o.connectTimeoutMs ?? 10_000 };
  const sockets = new Set<Socket>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };

  /** The allow-list's answer; a predicate that throws refuses (deny by default). */
  const isAllowed = (t: Target): boolean => {
    try {
      return o.allowed(t.host, t.port) === true;
    } catch {
      return false;
    }
  };

  /** Checked and connected, or answered: the socket to splice to, or null. */
  async function open(t: Target, refuse: (status: number, reason: string, body: string) => void): Promise<Socket | null> {
    const key = targetKey(t);
    if (!isAllowed(t)) {
      tally.refuse(key);
      refuse(403, 'Forbidden', refusedBody(key));
      return null;
    }
    try {
      const socket = await connectUpstream(t, upstream);
      track(socket);
      tally.reached(key);
      return socket;
    } catch (e) {
      const why = e instanceof Unreachable ? e.message : 'connect failed';
      tally.fail(key, why);
      refuse(502, 'Bad Gateway', unreachableBody(key, why));
      return null;
    }
  }

  const listenHost = o.host ?? '127.0.0.1';
  let selfPort = -1;
  /** The proxy's own address, as a client may name it. */
  const isSelf = (t: Target): boolean => t.port === selfPort && (t.host === listenHost || t.host === 'localhost');

  const server = createServer({
    maxHeaderSize: o.maxHeaderBytes ?? 16_384,
    headersTimeout: headerMs,
    requestTimeout: Math.max(headerMs, idleMs),
    // How often Node checks the two timeouts above: often enough that the header timeout holds.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, headerMs / 4)),
    keepAliveTimeout: 5000,
  });
  server.maxConnections = o.maxConnections ?? 256;
  server.on('drop', () => tally.refuse(TOO_MANY_CONNECTIONS));
  server.on('connection', track);

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    const target = req.httpVersion === '1.1' || req.httpVersion === '1.0' ? parseAuthority(req.url ?? '') : null;
    if (!target) {
      tally.refuse(MALFORMED);
      answerAndClose(client, 400, 'Bad Request', 'baton: the proxy takes CONNECT host:port HTTP/1.1 with a DNS name or an IP address and a port.\n');
      return;
    }
    client.pause();
    void open(target, (status, reason, body) => answerAndClose(client, status, reason, body)).then((up) => {
      if (!up) return;
      if (client.destroyed) return void up.destroy();
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) up.write(head);
      splice(client, up, idleMs);
      client.resume();
    });
  });

  /** Sends `req` on over `up` (a socket to the checked address) with `headers` and `path`, and its answer back to `res`. */
  const forward = (req: IncomingMessage, res: ServerResponse, up: Socket, headers: string[], path: string, key: string, refuse: (status: number, reason: string, body: string) => void, metered?: { body: Buffer; tap: (answer: IncomingMessage | null) => void }): void => {
    // A metered request's body was read whole (the request then counts as destroyed): its client is the answer's socket.
    if (metered ? !res.socket || res.socket.destroyed : req.destroyed) {
      metered?.tap(null);
      return void up.destroy();
    }
    // The socket connected to the checked address: with createConnection and no agent, Node connects nothing itself.
    const out = httpRequest({ method: req.method, path, headers: headers as unknown as Record<string, string>, createConnection: () => up });
    out.setTimeout(idleMs, () => out.destroy(new Error('idle')));
    out.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders, answer.headers.connection) as unknown as Record<string, string>);
      metered?.tap(answer);
      answer.pipe(res);
    });
    out.on('error', () => {
      metered?.tap(null);
      if (!res.headersSent) refuse(502, 'Bad Gateway', unreachableBody(key, 'the connection failed during the request'));
      else res.destroy();
    });
    res.on('close', () => out.destroy());
    if (metered) return void out.end(metered.body);
    req.pipe(out);
    req.resume();
  };

  type Refuse = (status: number, reason: string, body: string) => void;

  /**
   * A request to the model path, checked and connected: the socket to the API's host (TLS
   * unless the job's gateway is plain HTTP), the path there, and the request's end-to-end headers
   * with the held key where the agent put its placeholder and the API's Host. Null when refused.
   */
  const modelRequest = async (req: IncomingMessage, path: string, refuse: Refuse): Promise<{ up: Socket; path: string; headers: string[]; key: string } | null> => {
    const m = modelTarget(path);
    if (!m) {
      tally.refuse(MALFORMED);
      refuse(400, 'Bad Request', `baton: the proxy forwards absolute-form http:// requests, tunnels everything else with CONNECT host:port, and serves the model APIs ${Object.keys(MODEL_APIS).join(', ')} under ${MODEL_PATH}<api>/.\n`);
      return null;
    }
    const upstream = o.models?.upstreams?.[m.api] ?? { secure: true, host: MODEL_APIS[m.api], port: 443, prefix: '' };
    const target = parseAuthority(upstream.host.includes(':') ? `[${upstream.host}]:${upstream.port}` : `${upstream.host}:${upstream.port}`);
    if (!target) {
      tally.refuse(MALFORMED);
      refuse(502, 'Bad Gateway', `baton: the model API's address ${upstream.host} is not a host name or an IP address.\n`);
      return null;
    }
    const key = targetKey(target);
    const { headers, path: outPath } = withHeldKey(m.api, endToEnd(req.rawHeaders, req.headers.connection), m.path, o.models?.keys ?? []);
    const bracketed = target.host.includes(':') ? `[${target.host}]` : target.host;
    headers.push('Host', target.port === (upstream.secure ? 443 : 80) ? bracketed : `${bracketed}:${target.port}`);
    const up = await open(target, refuse);
    if (!up) return null;
    if (!upstream.secure) return { up, path: upstream.prefix + outPath, headers, key };
    const secure = tlsConnect({ socket: up, ...(!target.literal && { servername: target.host }), ...(o.models?.ca !== undefined && { ca: o.models.ca }) });
    track(secure);
    secure.once('error', () => {
      tally.fail(key, 'the TLS handshake failed');
      refuse(502, 'Bad Gateway', unreachableBody(key, 'the TLS handshake failed'));
    });
    return { up: secure, path: upstream.prefix + outPath, headers, key };
  };

  /** A request to the model path: on to the API's host, with the held key where the agent put its placeholder. */
  const model = (req: IncomingMessage, res: ServerResponse, path: string, refuse: Refuse): void => {
    req.pause();
    const once: Refuse = (status, reason, body) => (res.headersSent ? res.destroy() : refuse(status, reason, body));
    const meter = o.models?.meter;
    const api = modelTarget(path)?.api;
    if (!meter || !api) {
      void modelRequest(req, path, once).then((r) => {
        if (!r) return;
        r.headers.push('Connection', 'close');
        forward(req, res, r.up, r.headers, r.path, r.key, once);
      });
      return;
    }
    void readBody(req).then(async (body) => {
      if (body === null) return once(413, 'Payload Too Large', `baton: a model request through the sandbox's proxy may carry at most ${MAX_MODEL_REQUEST} bytes.\n`);
      const admission = meter.admit(api, path, body);
      if (!admission.ok) {
        res.writeHead(COST_CAP_STATUS, 'Payment Required', { 'content-type': 'application/json', connection: 'close' }).end(capRefusalBody(api, admission.message));
        return;
      }
      const r = await modelRequest(req, path, once);
      if (!r) return meter.settle(admission.admitted, 0, null);
      // Answers uncompressed: their usage is read as they pass.
      const headers: string[] = [];
      for (let i = 0; i + 1 < r.headers.length; i += 2) if (r.headers[i]!.toLowerCase() !== 'accept-encoding') headers.push(r.headers[i]!, r.headers[i + 1]!);
      headers.push('Accept-Encoding', 'identity', 'Connection', 'close');
      forward(req, res, r.up, headers, r.path, r.key, once, { body, tap: tapUsage(meter, admission.admitted) });
    });
  };

  /**
   * A WebSocket on the model path (codex's Responses transport): the upgrade request sent on with
   * the held key like any model request, then bytes both ways, never looked into.
   */
  const modelUpgrade = (req: IncomingMessage, client: Socket, head: Buffer, path: string): void => {
    client.on('error', () => client.destroy());
    if (o.models?.meter) {
      // A WebSocket's frames are not read: its cost could not be metered. 426 is the answer codex
      // falls back to HTTPS on at once, without spending its retries (codex-rs
      // core/tests/suite/websocket_fallback.rs, as read in openai/codex issue #44953).
      return answerAndClose(client, 426, 'Upgrade Required', "baton: the sandbox's proxy meters model requests over HTTP; it does not carry WebSockets.\n");
    }
    client.pause();
    const refuse: Refuse = (status, reason, body) => answerAndClose(client, status, reason, body);
    void modelRequest(req, path, refuse).then((r) => {
      if (!r) return;
      if (client.destroyed) return void r.up.destroy();
      const lines = [`${req.method} ${r.path} HTTP/1.1`];
      for (let i = 0; i + 1 < r.headers.length; i += 2) lines.push(`${r.headers[i]}: ${r.headers[i + 1]}`);
      lines.push('Connection: Upgrade', `Upgrade: ${String(req.headers.upgrade)}`);
      r.up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) r.up.write(head);
      splice(client, r.up, idleMs);
      client.resume();
    });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refuse = (status: number, reason: string, body: string): void => {
      res.writeHead(status, reason, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(body);
    };
    const url = req.url ?? '';
    // Origin-form: a client that reaches the proxy's own address directly (NO_PROXY covers loopback).
    if (url.startsWith('/')) return model(req, res, url, refuse);
    const form = absoluteHttp(url);
    const target = form ? parseAuthority(form.authority, 80) : null;
    if (!form || !target) {
      tally.refuse(MALFORMED);
      refuse(400, 'Bad Request', 'baton: the proxy forwards absolute-form http:// requests and tunnels everything else with CONNECT host:port.\n');
      return;
    }
    // Absolute-form to the proxy itself: a client that sends even loopback through its proxy.
    if (isSelf(target)) return model(req, res, form.path, refuse);
    req.pause();
    void open(target, refuse).then((up) => {
      if (!up) return;
      const headers = endToEnd(req.rawHeaders, req.headers.connection);
      headers.push('Host', hostHeader(target), 'Connection', 'close');
      forward(req, res, up, headers, form.path, targetKey(target), refuse);
    });
  });

  // Plain HTTP Upgrade (ws://) is not forwarded, but on the model path: clients tunnel WebSockets with CONNECT.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = req.url ?? '';
    const form = url.startsWith('/') ? null : absoluteHttp(url);
    const self = form ? parseAuthority(form.authority, 80) : null;
    if (url.startsWith('/')) return modelUpgrade(req, socket, head, url);
    if (form && self && isSelf(self)) return modelUpgrade(req, socket, head, form.path);
    tally.refuse(MALFORMED);
    answerAndClose(socket, 501, 'Not Implemented', 'baton: the proxy does not forward Upgrade over plain HTTP; tunnel it with CONNECT.\n');
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    tally.refuse(MALFORMED);
    if (err.code === 'HPE_HEADER_OVERFLOW') answerAndClose(socket, 431, 'Request Header Fields Too Large', 'baton: request head too large.\n');
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') answerAndClose(socket, 408, 'Request Timeout', 'baton: request head too slow.\n');
    else answerAndClose(socket, 400, 'Bad Request', 'baton: not an HTTP request the proxy takes (CONNECT host:port, or absolute-form http://).\n');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  selfPort = port;
  return {
    port,
    url: `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${port}`,
    report: () => tally.report(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
