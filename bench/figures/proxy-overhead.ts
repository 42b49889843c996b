// What the agent sandbox's egress proxy costs a request: a small request and its answer over a
// fresh connection, through a fresh CONNECT tunnel of the proxy and directly, interleaved, on
// loopback. The stand-in server echoes; the proxy resolves its name to it (127.0.0.2) with the
// production checks in place (allow-list predicate, resolver call, connect, splice).
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startProxy } from '../../src/agents/sandbox/proxy.ts';
import type { Figure } from './figure.ts';

const REQUESTS = 200;
const WARMUP = 20;
const REQUEST = Buffer.alloc(200, 'r');

/** Opens a connection, optionally asks for a tunnel, sends the request, waits for all of it back; ms. */
function exchange(host: string, port: number, tunnelTo: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, host);
    let tunnelled = tunnelTo === null;
    let received = 0;
    let pending = '';
    socket.on('error', reject);
    socket.on('connect', () => {
      if (tunnelTo) socket.write(`CONNECT ${tunnelTo} HTTP/1.1\r\nHost: ${tunnelTo}\r\n\r\n`);
      else socket.write(REQUEST);
    });
    socket.on('data', (d: Buffer) => {
      if (!tunnelled) {
        pending += d.toString('latin1');
        if (!pending.includes('\r\n\r\n')) return;
        if (!pending.startsWith('HTTP/1.1 200')) return reject(new Error(`the proxy answered ${pending.split('\r\n')[0]}`));
        tunnelled = true;
        socket.write(REQUEST);
        return;
      }
      received += d.length;
      if (received >= REQUEST.length) {
        const ms = performance.now() - started;
        socket.destroy();
        resolve(ms);
      }
    });
  });
}

async function measureOverhead(): Promise<number> {
  const echo = createServer((s) => s.pipe(s));
  echo.listen(0, '127.0.0.2');
  await once(echo, 'listening');
  const port = (echo.address() as AddressInfo).port;
  const target = `api.anthropic.test:${port}`;
  const proxy = await startProxy({
    allowed: (host, p) => host === 'api.anthropic.test' && p === port,
    resolve: async () => ['127.0.0.2'],
    // The stand-in listens on loopback, which the proxy refuses for a name by default.
    allowInternalAddresses: true,
  });
  try {
    let direct = 0;
    let proxied = 0;
    for (let i = -WARMUP; i < REQUESTS; i++) {
      const d = await exchange('127.0.0.2', port, null);
      const p = await exchange('127.0.0.1', proxy.port, target);
      if (i < 0) continue;
      direct += d;
      proxied += p;
    }
    return (proxied - direct) / REQUESTS;
  } finally {
    await proxy.close();
    await new Promise((r) => echo.close(r));
  }
}

export const proxyOverheadMsPerRequest: Figure = {
  name: 'proxy_overhead_ms_per_request',
  description: 'mean extra time of a small request and answer over a fresh CONNECT tunnel of the egress proxy vs. directly, loopback, 200 interleaved pairs',
  unit: 'ms',
  target: { op: '<', value: 5 },
  measure: measureOverhead,
};
