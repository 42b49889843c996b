/* global process, console, URL, performance */
// The stand-in agent of the worker's sandbox scenario (worker-scenario.ts), started by
// runWorker as a `command` agent: it tries what the sandbox must refuse and what it must let
// through, leaves a process behind, writes files with modes that keep others out, and writes
// what it saw to BATON_OUTPUT. Plain JS: it runs as the agent's user, with node only.
import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';

const cfg = JSON.parse(process.env.PROBE_CONFIG);
const proxy = new URL(process.env.HTTPS_PROXY);

/** CONNECT through the proxy, then (when tunnelled) one plain HTTP request: `<status>` or `<status>:<body>`. */
function tunnel(authority) {
  return new Promise((resolve) => {
    const s = createConnection({ host: proxy.hostname, port: Number(proxy.port) });
    let buf = '';
    let open = false;
    s.setTimeout(10_000, () => (s.destroy(), resolve('timeout')));
    s.on('error', (e) => resolve(e.code));
    s.on('connect', () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    s.on('data', (d) => {
      buf += d.toString();
      if (!open) {
        const status = buf.split(' ')[1];
        if (status !== '200') return void (s.destroy(), resolve(status));
        if (!buf.includes('\r\n\r\n')) return;
        open = true;
        buf = '';
        s.write(`GET / HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      }
    });
    s.on('end', () => resolve(`200:${buf.split('\r\n\r\n').slice(1).join('').trim()}`));
  });
}
function tcp(host, port) {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.setTimeout(5000, () => (s.destroy(), resolve('timeout')));
    s.once('connect', () => (s.destroy(), resolve('connected')));
    s.once('error', (e) => resolve(e.code));
  });
}
/** A connection's outcome and how long it took to come, in ms. */
async function timed(host, port) {
  const started = performance.now();
  const result = await tcp(host, port);
  return { result, ms: Math.round(performance.now() - started) };
}
function attempt(f) {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e.code;
  }
}

const out = { uid: process.getuid() };
out.refusedHost = await tunnel('evil.test:443');
out.allowedHost = await tunnel(cfg.allowed);
out.direct = await tcp(cfg.directHost, cfg.directPort);
// Around the proxy to a host beyond the job's own address: refused at once, not at the 5 s timeout.
out.testNet = await timed(cfg.testNetHost, 443);
out.lookup = await lookup('api.anthropic.test').then(() => 'resolved', (e) => e.code);
out.workerEnviron = attempt(() => readFileSync(`/proc/${cfg.workerPid}/environ`));
// Left running in a session of its own: the sweep must end it.
spawn('setsid', ['sleep', '300'], { detached: true, stdio: 'ignore' }).unref();
// Files only their owner may read: the worker must still collect them.
writeFileSync('private-file.txt', 'made by the agent, mode 600\n', { mode: 0o600 });
mkdirSync('private-dir', { mode: 0o700 });
writeFileSync('private-dir/inner.txt', 'inside a folder of mode 700\n', { mode: 0o600 });
writeFileSync(process.env.BATON_OUTPUT, JSON.stringify(out));
console.log(JSON.stringify(out));
