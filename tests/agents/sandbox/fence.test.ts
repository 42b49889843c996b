// The agent sandbox's Linux fence (src/agents/sandbox/): an agent of its own user, a packet
// filter, resource limits. The scenario runs as root in a network and mount namespace the
// test makes (fence-scenario.ts): the machine's users, files and firewall are never touched,
// and nothing but loopback and the namespace's own veth pair is. Without the rights for that
// (root: CAP_SYS_ADMIN for the namespaces, CAP_NET_ADMIN for nftables) the test fails, saying
// so; it never skips.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { fencedCommand, filtersUid } from '../../../src/agents/sandbox/fence.ts';
import { limitHit, prlimitOptions } from '../../../src/agents/sandbox/limits.ts';
import { fenceRuleset, parseRefusals } from '../../../src/agents/sandbox/ruleset.ts';
import { pickProxyPort, portsInUse, sudoersRule } from '../../../src/agents/sandbox/setup.ts';
import { runInNamespace } from './namespace.ts';

interface Probe {
  uid: number;
  secret: boolean;
  path: boolean;
  otherLoopback: string;
  proxy: string;
  otherPortOnProxyAddress: { result: string; ms: number };
  testNet: { result: string; ms: number };
  ownServer: string;
  udpResolver: string;
  udpLoopback53: string;
  lookup: string;
  workerEnviron: string;
  runnerHomeFile: string;
  readTemp: string;
  writeTemp: string;
  writeWorkspace: string;
  secretInArgv: boolean;
}
interface FenceProbeOut {
  enforced: string[];
  missing: { protection: string; reason: string }[];
  state: { user: { uid: number } } | null;
}
interface Out {
  probeBefore: FenceProbeOut;
  probeAfter: FenceProbeOut;
  ports: { proxyPort: number; otherPort: number; samePort: number };
  heard: { other: number; same: number };
  root: Probe;
  sudo: { uid: number; probe: FenceProbeOut; seen: Probe; refusals: { host: string; count: number }[]; changes: { path: string }[]; leftBeforeSweep: number; leftAfterSweep: number; error?: string };
  dnsReceived: string[];
  refusals: { host: string; count: number }[];
  changes: { path: string; status: string }[];
  limits: Record<'cpu' | 'memory' | 'processes', { hit: string | null; reason: string | null }>;
  leftBeforeSweep: number;
  leftAfterSweep: number;
}

describe('the fence, in a namespace of its own', () => {
  let out: Out;
  beforeAll(() => {
    out = JSON.parse(runInNamespace('fence')) as Out;
  }, 180_000);

  it('the probe says the setup step did not run before it, and all three protections are in force after it', () => {
    expect(out.probeBefore.enforced).toEqual([]);
    expect(out.probeBefore.missing.map((m) => m.protection)).toEqual(['agent-user', 'packet-filter', 'resource-limits']);
    expect(out.probeBefore.missing[0]!.reason).toMatch(/setup step did not run/);
    expect(out.probeAfter).toMatchObject({ enforced: ['agent-user', 'packet-filter', 'resource-limits'], missing: [] });
    expect(out.sudo.error).toBeUndefined();
    expect(out.sudo.probe).toMatchObject({ enforced: ['agent-user', 'packet-filter', 'resource-limits'], missing: [] });
  });

  for (const via of ['root', 'sudo'] as const) {
    describe(`a stand-in agent started by a worker running as ${via === 'root' ? 'root (setpriv)' : 'the runner user (sudo)'}`, () => {
      const seen = (): Probe => (via === 'root' ? out.root : out.sudo.seen);

      it('runs as the agent user, with the environment (secrets too) and PATH it was given, none of it on its command line', () => {
        expect(seen().uid).toBe(out.probeAfter.state!.user.uid);
        expect(seen().secret).toBe(true);
        expect(seen().path).toBe(true);
        expect(seen().secretInArgv).toBe(false);
      });

      it("reaches the proxy's port on 127.0.0.1 and its own server there, and is refused another user's listener on any other loopback port or address", () => {
        expect(seen().proxy).toBe('ok:proxy-here');
        expect(seen().ownServer).toBe('ok:own-here');
        expect(seen().otherLoopback).toBe('ECONNREFUSED');
        expect(seen().otherPortOnProxyAddress.result).toBe('ECONNREFUSED');
        // Refused at its SYN's first retransmission, not left to the client's 5 s timeout.
        expect(seen().otherPortOnProxyAddress.ms).toBeLessThan(2500);
      });

      it('is refused a host beyond the job\'s own address at once, not left to its timeout', () => {
        expect(seen().testNet.result).toBe('ECONNREFUSED');
        // The client gives up after 5 s; a refusal comes in milliseconds (1 s is room for a loaded machine).
        expect(seen().testNet.ms).toBeLessThan(1000);
      });

      it('resolves no name: UDP to 127.0.0.53:53 and 127.0.0.1:53 is refused, and a lookup fails', () => {
        expect(seen().udpResolver).toBe('EPERM');
        expect(seen().udpLoopback53).toBe('EPERM');
        expect(seen().lookup).toBe('EAI_AGAIN');
      });

      it("cannot read the worker's environment, the runner's home or temp folder, and can write its checkout", () => {
        expect(seen().workerEnviron).toBe('EACCES');
        expect(seen().runnerHomeFile).toBe('EACCES');
        expect(seen().readTemp).toBe('EACCES');
        expect(seen().writeTemp).toBe('EACCES');
        expect(seen().writeWorkspace).toBe('ok');
      });
    });
  }

  it('the fake resolvers and the other users\' loopback listeners received nothing', () => {
    expect(out.dnsReceived).toEqual([]);
    expect(out.heard).toEqual({ other: 0, same: 0 });
  });

  it('readRefusals names every destination the agent tried and was refused, and nothing it did not try', () => {
    const hosts = out.refusals.map((r) => r.host);
    const tried = [`127.0.0.2:${out.ports.otherPort}/tcp`, `127.0.0.1:${out.ports.samePort}/tcp`, '192.0.2.2:443/tcp', '127.0.0.53:53/udp', '127.0.0.1:53/udp'];
    expect([...hosts].sort()).toEqual([...tried].sort());
    expect(hosts.some((h) => h.startsWith(`127.0.0.1:${out.ports.proxyPort}/`))).toBe(false);
    for (const r of out.refusals) expect(r.count).toBeGreaterThanOrEqual(1);
    // The worker (as the runner user) reads them through the setup step's sudo rule.
    expect(out.sudo.refusals.map((r) => r.host)).toEqual(expect.arrayContaining([`127.0.0.2:${out.ports.otherPort}/tcp`]));
  });

  it("the worker's git lists what the agent wrote in a checkout that belongs to the agent, and the worker can still write there", () => {
    expect(out.changes).toEqual([{ path: 'agent-file.txt', status: 'added', mode: '100644' }]);
    expect(out.sudo.changes.map((c) => c.path)).toEqual(['agent-file.txt']);
  });

  it('an agent that spins, allocates or forks past its limit ends with the limit as its reason, whatever its CLI says', () => {
    expect(out.limits.cpu).toMatchObject({ hit: 'cpu', reason: expect.stringMatching(/CPU limit \(1 s/) });
    // The CLI printed only "the-cli: a tool failed" and exited 1.
    expect(out.limits.memory).toMatchObject({ hit: 'memory', reason: expect.stringMatching(/memory limit of 256 MiB per process was reached \(a process of the agent held 2\d\d MiB of data\)/) });
    expect(out.limits.processes).toMatchObject({ hit: 'processes', reason: expect.stringMatching(/process limit of 32 was reached \(its user had 32 processes and threads at once\)/) });
  });

  it('the sweep ends what the agent left running in a session of its own, from root and through sudo', () => {
    expect(out.leftBeforeSweep).toBeGreaterThan(0);
    expect(out.leftAfterSweep).toBe(0);
    expect(out.sudo.leftBeforeSweep).toBeGreaterThan(0);
    expect(out.sudo.leftAfterSweep).toBe(0);
  });
});

describe('the fence, as text', () => {
  const user = { name: 'baton-agent', uid: 999, gid: 995, home: '/home/baton-agent' };

  it("the ruleset filters only the agent's sockets, admits the proxy's port before anything else on loopback but port 53, and counts the rest", () => {
    const text = fenceRuleset(999, 24_680);
    expect(text).toContain('meta skuid 999 jump agent');
    expect(text).not.toContain('skuid !=');
    expect(text.indexOf('th dport 53 jump refuse')).toBeLessThan(text.indexOf('ip daddr 127.0.0.1 tcp dport 24680 accept'));
    expect(text).toMatch(/update @refused4 \{ ip daddr \. meta l4proto \. th dport \}/);
    expect(() => fenceRuleset(0, 24_680)).toThrow(/positive integer/);
    expect(() => fenceRuleset(999, 53)).toThrow(/port number other than 53/);
  });

  it('refusals are parsed from nft JSON, IPv6 bracketed, most refused first', () => {
    const json = JSON.stringify({
      nftables: [
        { metainfo: { version: '1.0.6' } },
        { set: { name: 'refused4', elem: [{ elem: { val: { concat: ['127.0.0.2', 'tcp', 443] }, counter: { packets: 2, bytes: 120 } } }] } },
        { set: { name: 'refused6', elem: [{ elem: { val: { concat: ['2001:db8::1', 'udp', 53] }, counter: { packets: 5, bytes: 300 } } }] } },
        { chain: { name: 'output' } },
      ],
    });
    expect(parseRefusals(json)).toEqual([
      { host: '[2001:db8::1]:53/udp', count: 5 },
      { host: '127.0.0.2:443/tcp', count: 2 },
    ]);
    expect(() => parseRefusals('nft: no such table')).toThrow(/not JSON/);
  });

  it('a table without the skuid rule does not count as the packet filter', () => {
    const rule = (uid: number) => ({ rule: { chain: 'output', expr: [{ match: { op: '==', left: { meta: { key: 'skuid' } }, right: uid } }, { jump: { target: 'agent' } }] } });
    expect(filtersUid(JSON.stringify({ nftables: [rule(999)] }), 999)).toBe(true);
    expect(filtersUid(JSON.stringify({ nftables: [rule(1000)] }), 999)).toBe(false);
    expect(filtersUid(JSON.stringify({ nftables: [] }), 999)).toBe(false);
  });

  it('limits become prlimit options (RLIMIT_DATA for memory, SIGXCPU before SIGKILL), and a finished agent hit none', () => {
    expect(prlimitOptions({ cpuSeconds: 60, memoryMb: 512, processes: 100 })).toEqual(['--cpu=60:61', `--data=${512 * 1024 * 1024}`, '--nproc=100']);
    expect(() => prlimitOptions({ cpuSeconds: 0, memoryMb: null, processes: null })).toThrow(/cpuSeconds/);
    const limits = { cpuSeconds: 1, memoryMb: 10, processes: 5 };
    expect(limitHit({ code: 0, signal: null, stdout: '', stderr: 'Resource temporarily unavailable' }, limits, { tasks: 5, dataKiB: 10 * 1024 })).toBeNull();
    // A limit that was not set is never blamed.
    expect(limitHit({ code: 1, signal: null, stdout: '', stderr: 'Cannot allocate memory' }, { ...limits, memoryMb: null })).toBeNull();
    // What the processes held names the limit when the CLI's words do not.
    const cli = { code: 1, signal: null, stdout: '', stderr: 'claude exited with code 1' };
    expect(limitHit(cli, limits, { tasks: 5, dataKiB: 0 })?.limit).toBe('processes');
    expect(limitHit(cli, limits, { tasks: 4, dataKiB: 9.5 * 1024 })?.limit).toBe('memory');
    expect(limitHit(cli, limits, { tasks: 4, dataKiB: 8 * 1024 })).toBeNull();
  });

  it('secrets travel in the environment, never in argv; sudo keeps exactly the variables given', () => {
    const f = fencedCommand(['claude', '-p', 'hi'], { user, limits: { cpuSeconds: null, memoryMb: null, processes: null }, env: { PATH: '/usr/bin', API_KEY: 's3cret', 'BAD,NAME': 'x' }, root: false });
    expect(f.argv.join(' ')).not.toContain('s3cret');
    expect(f.argv).toContain('--preserve-env=API_KEY,HOME,LOGNAME,PATH,USER');
    expect(f.env).toMatchObject({ API_KEY: 's3cret', HOME: '/home/baton-agent', USER: 'baton-agent' });
    expect(f.argv.slice(-3)).toEqual(['claude', '-p', 'hi']);
  });

  it('the sudoers rule lets the runner become the agent and list the filter, nothing else, and refuses odd user names', () => {
    const rule = sudoersRule('runner', '/usr/sbin/nft');
    expect(rule).toContain('runner ALL=(baton-agent) NOPASSWD:SETENV: ALL');
    expect(rule).toContain('runner ALL=(root) NOPASSWD: /usr/sbin/nft -j list table inet baton');
    expect(rule.split('\n').filter((l) => l.startsWith('runner '))).toHaveLength(2);
    expect(() => sudoersRule('runner ALL=(ALL) ALL #', '/usr/sbin/nft')).toThrow(/plain user name/);
  });
});

describe("the proxy's port, drawn by the setup", () => {
  it('is below the ephemeral range and never one a socket holds', async () => {
    const listener = createServer().listen(0, '127.0.0.1');
    await once(listener, 'listening');
    try {
      expect(portsInUse().has((listener.address() as AddressInfo).port)).toBe(true);
    } finally {
      listener.close();
    }
    const taken = new Set(Array.from({ length: 12_000 }, (_, i) => 20_000 + i).filter((p) => p !== 25_000));
    expect(pickProxyPort(taken)).toBe(25_000);
    for (let i = 0; i < 50; i++) {
      const port = pickProxyPort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
  });
});
