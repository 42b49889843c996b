// Attack 9 of round 3, run as root in a network namespace of its own (namespace.ts), where only
// loopback exists: an allowed name whose DNS answer spells an internal address another way
// (NAT64, IPv4-translated, 6to4, shared address space). The proxy must refuse to connect the
// name there; had it tried, the namespace has no route out, so nothing leaves this machine.
//
//   round3-fence-scenario.ts spellings → one JSON object: each spelling with the proxy's answer
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { startProxy } from '../../src/agents/sandbox/proxy.ts';

/** The DNS answers an attacker who controls an allowed name's zone gives. */
const SPELLINGS = ['64:ff9b::a9fe:a9fe', '64:ff9b::169.254.169.254', '::ffff:0:a9fe:a9fe', '2002:a9fe:a9fe::1', '100.100.100.200', '64:ff9b::7f00:1', '::ffff:0:127.0.0.1'];

/** CONNECT through the proxy; its whole answer. */
function ask(port: number, authority: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => resolve(got));
    s.on('close', () => resolve(got));
    s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

async function spellings(): Promise<void> {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  const out: Record<string, string> = {};
  for (const spelling of SPELLINGS) {
    const proxy = await startProxy({ allowed: () => true, resolve: async () => [spelling], connectTimeoutMs: 2000 });
    out[spelling] = (await ask(proxy.port, 'metadata.attacker.test:80')).split('\r\n\r\n').pop()!.trim();
    await proxy.close();
  }
  console.log(JSON.stringify(out));
}

const [mode] = process.argv.slice(2);
if (mode === 'spellings') await spellings();
else throw new Error(`round3-fence-scenario: unknown mode ${mode}`);
