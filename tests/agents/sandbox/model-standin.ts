// A stand-in for the model APIs behind the egress proxy: HTTPS on loopback with a certificate
// of its own for the real hosts' names (api.anthropic.com, api.openai.com,
// generativelanguage.googleapis.com), made with openssl for the test, and a record of every
// request it received — which key came in which header. The proxy is handed the certificate as
// its authority and a resolver that maps those names to the stand-in's address.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL_APIS } from '../../../src/agents/sandbox/proxy-models.ts';

/** A job's Anthropic key in the tests: what must reach the stand-in API and nothing the agent can read. */
export const CANARY = 'sk-ant-api03-canary-5e1f0c7d9a3b2e4f6a8c0d1e';
/** A job's OAuth token (`claude setup-token`) in the tests. */
export const OAUTH_CANARY = 'sk-ant-oat01-canary-9d8c7b6a5f4e3d2c1b0a';

export interface ReceivedRequest {
  host: string;
  method: string;
  path: string;
  /** The credential headers as they arrived (absent ones left out). */
  auth: Record<string, string>;
  body: string;
}

export interface ModelStandIn {
  port: number;
  /** The certificate, to be trusted as the proxy's authority for the model APIs. */
  ca: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

const NAMES = Object.values(MODEL_APIS);

/** A self-signed certificate for the model APIs' names (its own authority), and its key. */
export function standInCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-model-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', `/CN=${NAMES[0]}`, '-addext', `subjectAltName=${NAMES.map((n) => `DNS:${n}`).join(',')}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One answer of a stand-in that answers in its API's own format: a status, a content type, and the body in the chunks it is sent in. */
export interface StandInAnswer {
  status: number;
  contentType: string;
  chunks: string[];
  /** Sent before the last chunk: the test can check the chunks before it reached the client. */
  beforeLast?: () => Promise<void>;
}

/**
 * Listens on `host` (a loopback address); answers every request `200 {"ok":true}` after recording
 * it, or what `answer` says for it (usage-answers.ts: each API's format, streamed or not).
 */
export async function startModelStandIn(host = '127.0.0.2', certificate = standInCertificate(), answer?: (r: ReceivedRequest) => StandInAnswer): Promise<ModelStandIn> {
  const received: ReceivedRequest[] = [];
  const server = createServer(certificate, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const auth: Record<string, string> = {};
      for (const name of ['authorization', 'x-api-key', 'x-goog-api-key']) if (typeof req.headers[name] === 'string') auth[name] = req.headers[name] as string;
      const r = { host: req.headers.host ?? '', method: req.method ?? '', path: req.url ?? '', auth, body };
      received.push(r);
      if (!answer) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      const a = answer(r);
      res.writeHead(a.status, { 'content-type': a.contentType });
      void (async () => {
        for (const [i, chunk] of a.chunks.entries()) {
          if (i === a.chunks.length - 1 && a.beforeLast) await a.beforeLast();
          res.write(chunk);
        }
        res.end();
      })();
    });
  });
  // A WebSocket upgrade (codex's Responses transport): recorded, answered 101, then every byte echoed.
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    const auth: Record<string, string> = {};
    for (const name of ['authorization', 'x-api-key', 'x-goog-api-key']) if (typeof req.headers[name] === 'string') auth[name] = req.headers[name] as string;
    received.push({ host: req.headers.host ?? '', method: `${req.method} (upgrade ${req.headers.upgrade})`, path: req.url ?? '', auth, body: '' });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    ca: certificate.cert,
    received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
