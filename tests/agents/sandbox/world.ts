// The world the fence's scenarios run in, inside the namespaces namespace.ts makes: a user
// database of the test's own (a copy of /etc's files with a runner user added, bind-mounted
// over /etc in the private mount namespace only), a runner home with a checkout and a temp
// folder as actions/checkout leaves them, and the fence set up over it (setupFence).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AGENT_USER, type FenceState } from '../../../src/agents/sandbox/fence.ts';
import { setupFence } from '../../../src/agents/sandbox/setup.ts';

export const HERE = fileURLToPath(new URL('.', import.meta.url));

export const RUNNER = 'baton-test-runner';

export function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface World {
  base: string;
  prefix: string;
  runnerHome: string;
  workspace: string;
  tempDir: string;
  probe: string;
  statePath: string;
}

/** The test's own user database (a copy of /etc's files, with the runner user added) and folders. */
export function makeWorld(): World {
  const base = mkdtempSync('/tmp/baton-fence-');
  chmodSync(base, 0o755);
  const prefix = join(base, 'db');
  mkdirSync(join(prefix, 'etc/sudoers.d'), { recursive: true });
  for (const f of ['passwd', 'group', 'shadow', 'gshadow', 'login.defs']) copyFileSync(join('/etc', f), join(prefix, 'etc', f));
  const runnerHome = join(base, 'runner-home');
  sh('useradd', ['--prefix', prefix, '--user-group', '--shell', '/bin/sh', '--home-dir', runnerHome, '--no-create-home', RUNNER]);
  // The agent's user, made before the setup would: with a uid of its own, unused on this
  // machine and drawn at random, because the sweep kills every process of that uid — the
  // kernel's, not the namespace's — and scenarios run side by side must not sweep each other.
  const used = new Set(['passwd', 'group'].flatMap((f) => readFileSync(join(prefix, 'etc', f), 'utf8').split('\n').map((l) => l.split(':')[2])));
  let agentUid = 0;
  while (agentUid === 0 || used.has(String(agentUid))) agentUid = 20_000 + Math.floor(Math.random() * 30_000);
  sh('useradd', ['--prefix', prefix, '--system', '--uid', String(agentUid), '--user-group', '--shell', '/usr/sbin/nologin', '--home-dir', join(base, 'agent-home'), '--no-create-home', AGENT_USER]);
  const runner = readFileSync(join(prefix, 'etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith(`${RUNNER}:`))!.split(':');
  const [uid, gid] = [Number(runner[2]), Number(runner[3])];
  const workspace = join(runnerHome, 'work/repo/repo');
  const tempDir = join(runnerHome, 'work/_temp');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(tempDir, { recursive: true });
  writeFileSync(join(runnerHome, '.credentials'), 'the runner\'s own file\n', { mode: 0o644 });
  // What a `run:` step's script looks like in RUNNER_TEMP: readable by all, as the runner leaves it.
  writeFileSync(join(tempDir, 'step-script.sh'), 'echo a script of another step\n', { mode: 0o644 });
  sh('git', ['-C', workspace, 'init', '-q']);
  writeFileSync(join(workspace, 'README.md'), 'hello\n');
  sh('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '.']);
  sh('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base']);
  // As actions/checkout leaves it: everything the runner's, readable by all.
  sh('chown', ['-R', `${uid}:${gid}`, runnerHome]);
  chmodSync(runnerHome, 0o755);
  const probe = join(base, 'agent-probe.mjs');
  copyFileSync(join(HERE, 'agent-probe.mjs'), probe);
  chmodSync(probe, 0o644);
  return { base, prefix, runnerHome, workspace, tempDir, probe, statePath: join(prefix, 'etc/baton/fence.json') };
}

export function setup(w: World): { ms: number; state: FenceState } {
  sh('ip', ['link', 'set', 'lo', 'up']);
  const started = performance.now();
  const { state, missing } = setupFence({ prefix: w.prefix, runnerUser: RUNNER, workspace: w.workspace, tempDir: w.tempDir, home: join(w.base, 'agent-home') });
  const ms = performance.now() - started;
  if (!state || missing.length) throw new Error(`the fence's setup left protections missing: ${JSON.stringify(missing)}`);
  // The scenario's user database and sudoers rule stand in for the machine's, in this mount namespace only.
  for (const f of ['passwd', 'group', 'shadow', 'gshadow']) sh('mount', ['--bind', join(w.prefix, 'etc', f), join('/etc', f)]);
  sh('mount', ['--bind', join(w.prefix, 'etc/sudoers.d'), '/etc/sudoers.d']);
  const resolv = join(w.base, 'resolv.conf');
  writeFileSync(resolv, 'nameserver 127.0.0.53\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
  sh('mount', ['--bind', resolv, '/etc/resolv.conf']);
  return { ms, state };
}

/** TEST-NET-1 (RFC 5737): the job's own address and a host beyond it, on a veth pair of the namespace's own. */
export const TEST_NET = { own: '192.0.2.1', far: '192.0.2.2' } as const;

/**
 * A host beyond the job's own address, as a runner's network has it: a veth pair in the test's
 * namespace, the job's end holding 192.0.2.1/24, the far end up with no address (nothing answers
 * there; a connection the fence let through would wait for ARP until the client's timeout).
 */
export function testNet(): void {
  sh('ip', ['link', 'add', 'baton-job', 'type', 'veth', 'peer', 'name', 'baton-far']);
  sh('ip', ['addr', 'add', `${TEST_NET.own}/24`, 'dev', 'baton-job']);
  sh('ip', ['link', 'set', 'baton-job', 'up']);
  sh('ip', ['link', 'set', 'baton-far', 'up']);
}

export function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)));
}

/** The user's live processes (not zombies waiting to be reaped). */
export function processesOf(uid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const status = readFileSync(`/proc/${n}/status`, 'utf8');
        return /^Uid:\s+(\d+)/m.exec(status)?.[1] === String(uid) && !/^State:\s+Z/m.test(status);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Live processes of `uid` once the count settles (a SIGKILL takes effect asynchronously); gives up after 5 s. */
export async function settledProcessesOf(uid: number): Promise<number> {
  const deadline = Date.now() + 5000;
  let n = processesOf(uid).length;
  while (n > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    n = processesOf(uid).length;
  }
  return n;
}

