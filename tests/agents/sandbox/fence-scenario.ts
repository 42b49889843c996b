// The fence's scenario, run as root inside a network and mount namespace of its own
// (`unshare --net --mount --fork`, fence-namespace.ts): nothing here reaches the machine's
// users, files or firewall. The user database is a copy the scenario makes (useradd
// --prefix), bind-mounted over /etc/passwd & co. in the private mount namespace only; the
// packet filter is loaded into the namespace's own nftables; only loopback and a veth pair
// the scenario makes in the namespace (a TEST-NET host beyond the job's address) are touched.
//
//   fence-scenario.ts fence   → the whole scenario, one JSON object on stdout
//   fence-scenario.ts setup   → only setupFence, timed (the bench)
//   fence-scenario.ts worker  → (internal) the worker's side as the test's runner user, through sudo
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceLimits } from '../../../src/engine/sandbox.ts';
import { fencedCommand, probeFence, readFenceState, readRefusals, sweepCommand, type FenceState } from '../../../src/agents/sandbox/fence.ts';
import { limitHit, limitReason, limitWatch } from '../../../src/agents/sandbox/limits.ts';
import { runProcess } from '../../../src/agents/process.ts';
import { collectChanges, openCheckout } from '../../../src/agents/changes.ts';
import { HERE, listen, makeWorld, processesOf, RUNNER, settledProcessesOf, setup, TEST_NET, testNet, type World } from './world.ts';

const SECRET = 'fence-secret-value-9f2c';
const NO_LIMITS: ResourceLimits = { cpuSeconds: null, memoryMb: null, processes: null };

/** Runs the stand-in agent through the fence and returns what it saw. */
async function runProbe(state: FenceState, w: World, proxyPort: number, otherPort: number, samePort: number, root: boolean): Promise<Record<string, unknown>> {
  // A PATH of the worker's own: it must reach the agent, not sudo's secure_path.
  const path = `/opt/baton-fence-test/bin:${process.env.PATH}`;
  const config = { path, secret: SECRET, proxyPort, otherPort, samePort, testNetHost: TEST_NET.far, workerPid: process.pid, runnerHomeFile: join(w.runnerHome, '.credentials'), tempDir: w.tempDir, tempFile: join(w.tempDir, 'step-script.sh'), workspace: w.workspace };
  const f = fencedCommand([process.execPath, w.probe], { user: state.user, limits: NO_LIMITS, env: { PATH: path, FENCE_SECRET: SECRET, PROBE_CONFIG: JSON.stringify(config) }, root });
  const r = await runProcess(f.argv, { cwd: w.workspace, env: f.env, timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`the stand-in agent failed (${r.code ?? r.signal}): ${r.stderr}${r.spawnError?.message ?? ''}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()!), secretInArgv: f.argv.some((a) => a.includes(SECRET)) };
}

/**
 * A CLI's attempt whose tool runs into a limit: the tool's words go nowhere, the CLI prints its
 * own and exits 1, as claude does ("claude exited with code 1"). What ended it must be named all the same.
 */
async function limitRun(state: FenceState, w: World, limits: ResourceLimits, tool: string, viaCli = true): Promise<{ hit: string | null; reason: string | null; code: number | null; signal: string | null }> {
  const cli = !viaCli ? tool : `const r = require('node:child_process').spawnSync(process.execPath, ['-e', ${JSON.stringify(tool)}], { stdio: 'ignore' }); console.error('the-cli: a tool failed (' + (r.status ?? r.signal) + ')'); process.exit(1);`;
  const f = fencedCommand([process.execPath, '-e', cli], { user: state.user, limits, env: { PATH: process.env.PATH }, root: true });
  const watch = limitWatch(state.user.uid, limits);
  const r = await runProcess(f.argv, { cwd: w.workspace, env: f.env, timeoutMs: 60_000 });
  const hit = limitHit(r, limits, watch.take());
  watch.stop();
  return { hit: hit?.limit ?? null, reason: hit && limitReason(hit, limits), code: r.code, signal: r.signal, ...(hit === null && { stderr: r.stderr.slice(-1000) }) };
}

async function fence(): Promise<void> {
  const w = makeWorld();
  const out: Record<string, unknown> = {};
  try {
    out.probeBefore = probeFence({ statePath: w.statePath });
    const { state } = setup(w);
    out.probeAfter = probeFence({ statePath: w.statePath });

    testNet();
    // The proxy's stand-in on the port the setup recorded; other users' listeners elsewhere on
    // loopback, each counting the connections it accepted.
    const heard = { other: 0, same: 0 };
    const proxy = createServer((s) => s.end('proxy-here\n'));
    const other = createServer((s) => (heard.other++, s.end('other-here\n')));
    const same = createServer((s) => (heard.same++, s.end('same-here\n')));
    await new Promise<void>((resolve) => proxy.listen(state.proxyPort, '127.0.0.1', resolve));
    const proxyPort = state.proxyPort;
    const otherPort = await listen(other, '127.0.0.2');
    const samePort = await listen(same, '127.0.0.1');
    const dnsReceived: string[] = [];
    for (const host of ['127.0.0.1', '127.0.0.53']) {
      const d = createSocket('udp4');
      d.on('message', () => dnsReceived.push(host));
      await new Promise<void>((resolve) => d.bind(53, host, resolve));
    }
    out.ports = { proxyPort, otherPort, samePort };
    out.root = await runProbe(state, w, proxyPort, otherPort, samePort, true);

    // The worker as GitHub runs it: the runner user, becoming the agent through sudo.
    const worker = await runProcess(['setpriv', '--reuid', RUNNER, '--regid', RUNNER, '--init-groups', '--', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), 'worker', w.base, String(proxyPort), String(otherPort), String(samePort)], {
      cwd: join(HERE, '../../..'),
      env: { PATH: process.env.PATH, HOME: w.runnerHome, RUNNER_SECRET: SECRET },
      timeoutMs: 60_000,
    });
    out.sudo = worker.code === 0 ? JSON.parse(worker.stdout.trim().split('\n').pop()!) : { error: `${worker.code ?? worker.signal}: ${worker.stderr}` };
    out.dnsReceived = dnsReceived;
    out.heard = heard;
    out.refusals = readRefusals(state);

    // What the worker's git sees of a checkout that is now the agent's.
    out.changes = collectChanges(openCheckout(w.workspace, 'HEAD')).changes;

    out.limits = {
      // The CLI itself spins: its signal says so.
      cpu: await limitRun(state, w, { ...NO_LIMITS, cpuSeconds: 1 }, 'for (;;) {}', false),
      // A tool that allocates until an allocation fails: V8 aborts it at once (SIGABRT). It grows a
      // chunk every 50 ms: filling 256 MiB in one burst takes less than the worker's 100 ms between
      // readings, and a process that fills its memory and dies between two readings is missed
      // (src/agents/sandbox/limits.ts says so); what the readings are for is a tool that grows.
      memory: await limitRun(state, w, { ...NO_LIMITS, memoryMb: 256 }, 'const a = []; const grow = () => { a.push(Buffer.alloc(16 << 20, 1)); setTimeout(grow, 50); }; grow();'),
      processes: await limitRun(
        state,
        w,
        // A tool that forks until a fork fails, then takes a moment (2 s: the worker's 100 ms readings
        // must see it on a loaded machine, where a 500 ms moment was missed) to report it and exit. Node's own
        // threads count against RLIMIT_NPROC too: room for them, not for 100 children.
        { ...NO_LIMITS, processes: 32 },
        "const { spawn } = require('node:child_process'); let n = 0; const next = () => { const c = spawn('sleep', ['30']); c.on('spawn', () => { if (++n < 100) next(); }); c.on('error', (e) => { console.error(e.message); setTimeout(() => process.exit(1), 2000); }); }; next();",
      ),
    };

    // What the agent leaves running, in a session of its own, the sweep ends.
    const bg = fencedCommand(['/bin/sh', '-c', 'setsid sleep 300 </dev/null >/dev/null 2>&1 & exit 0'], { user: state.user, limits: NO_LIMITS, env: { PATH: process.env.PATH }, root: true });
    spawnSync(bg.argv[0]!, bg.argv.slice(1), { env: bg.env });
    out.leftBeforeSweep = processesOf(state.user.uid).length;
    const sweep = sweepCommand({ user: state.user, env: process.env, root: true });
    spawnSync(sweep[0]!, sweep.slice(1));
    out.leftAfterSweep = await settledProcessesOf(state.user.uid);

    proxy.close();
    other.close();
    console.log(JSON.stringify(out));
    process.exit(0);
  } finally {
    rmSync(w.base, { recursive: true, force: true });
  }
}

/** The worker's side as the runner user (not root): the probe, through sudo. */
async function worker(base: string, proxyPort: number, otherPort: number, samePort: number): Promise<void> {
  const w: World = { base, prefix: join(base, 'db'), runnerHome: join(base, 'runner-home'), workspace: join(base, 'runner-home/work/repo/repo'), tempDir: join(base, 'runner-home/work/_temp'), probe: join(base, 'agent-probe.mjs'), statePath: join(base, 'db/etc/baton/fence.json') };
  const state = readFenceState(w.statePath)!;
  const probed = probeFence({ statePath: w.statePath });
  const seen = await runProbe(state, w, proxyPort, otherPort, samePort, false);
  const refusals = readRefusals(state);
  // The worker's own writes in the checkout after the agent (restoring agent configuration…) and its git.
  writeFileSync(join(w.workspace, 'agent-file.txt'), 'rewritten by the worker\n');
  const changes = collectChanges(openCheckout(w.workspace, 'HEAD')).changes;
  // Left behind by the agent, then swept through sudo too.
  const bg = fencedCommand(['/bin/sh', '-c', 'setsid sleep 300 </dev/null >/dev/null 2>&1 & exit 0'], { user: state.user, limits: NO_LIMITS, env: { PATH: process.env.PATH } });
  spawnSync(bg.argv[0]!, bg.argv.slice(1), { env: bg.env });
  const before = processesOf(state.user.uid).length;
  const sweep = sweepCommand({ user: state.user, env: process.env });
  spawnSync(sweep[0]!, sweep.slice(1));
  console.log(JSON.stringify({ uid: process.getuid!(), probe: probed, seen, refusals, changes, leftBeforeSweep: before, leftAfterSweep: await settledProcessesOf(state.user.uid) }));
}

async function setupTime(): Promise<void> {
  const w = makeWorld();
  try {
    console.log(JSON.stringify({ ms: setup(w).ms }));
  } finally {
    rmSync(w.base, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'fence') await fence();
else if (mode === 'setup') await setupTime();
else if (mode === 'worker') await worker(rest[0]!, Number(rest[1]), Number(rest[2]), Number(rest[3]));
else throw new Error(`fence-scenario: unknown mode ${mode}`);
