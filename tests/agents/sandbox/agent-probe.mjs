/* global process, console, Buffer, performance */
// The stand-in agent: started through the fence, it tries what an agent must not do and
// what it must still do, and prints one JSON line of what happened. Plain JS: it runs as
// the agent's user, with node only.
import { createConnection, createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { readFileSync, writeFileSync } from 'node:fs';

const cfg = JSON.parse(process.env.PROBE_CONFIG);
const out = { uid: process.getuid(), secret: process.env.FENCE_SECRET === cfg.secret, path: process.env.PATH === cfg.path, home: process.env.HOME };

function tcp(host, port) {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.setTimeout(5000, () => (s.destroy(), resolve('timeout')));
    s.once('data', (d) => (s.destroy(), resolve(`ok:${d.toString().trim()}`)));
    s.once('error', (e) => resolve(e.code));
  });
}
/** A connection's outcome and how long it took to come, in ms. */
async function timed(host, port) {
  const started = performance.now();
  const result = await tcp(host, port);
  return { result, ms: Math.round(performance.now() - started) };
}
function udp(host, port) {
  return new Promise((resolve) => {
    const s = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    s.send(Buffer.from('dns?'), port, host, (e) => (s.close(), resolve(e ? e.code : 'sent')));
  });
}
function attempt(f) {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e.code;
  }
}

out.otherLoopback = await tcp('127.0.0.2', cfg.otherPort);
out.proxy = await tcp('127.0.0.1', cfg.proxyPort);
out.otherPortOnProxyAddress = await timed('127.0.0.1', cfg.samePort);
out.testNet = await timed(cfg.testNetHost, 443);
// A server of its own on loopback (a test suite's), reached directly.
const own = createServer((s) => s.end('own-here\n'));
await new Promise((resolve) => own.listen(0, '127.0.0.1', resolve));
out.ownServer = await tcp('127.0.0.1', own.address().port);
own.close();
out.udpResolver = await udp('127.0.0.53', 53);
out.udpLoopback53 = await udp('127.0.0.1', 53);
out.lookup = await lookup('baton-fence.example').then(() => 'resolved', (e) => e.code);
out.workerEnviron = attempt(() => readFileSync(`/proc/${cfg.workerPid}/environ`));
out.runnerHomeFile = attempt(() => readFileSync(cfg.runnerHomeFile));
out.readTemp = attempt(() => readFileSync(cfg.tempFile));
out.writeTemp = attempt(() => writeFileSync(`${cfg.tempDir}/agent-was-here`, 'x'));
out.writeWorkspace = attempt(() => writeFileSync(`${cfg.workspace}/agent-file.txt`, 'made by the agent\n'));
console.log(JSON.stringify(out));
