// The worker's sandbox scenario, run as root inside a network and mount namespace of its own
// (namespace.ts), in the test's own user database (world.ts): the fence is set up, then
// `runWorker` runs — as the runner user, becoming the agent through sudo as on a GitHub
// runner — attempts whose tasks carry a sandbox request. Only the namespace's own links are used: the allowed
// stand-in API listens on 127.0.0.2 (the proxy's injected resolver maps api.anthropic.test
// there), the address an agent tries to reach directly on 127.0.0.3; beyond the job's own
// address, a TEST-NET host on a veth pair of the namespace (world.ts testNet).
//
//   worker-scenario.ts worker  → everything, one JSON object on stdout
//   worker-scenario.ts runner  → (internal) the runWorker side, as the runner user
import { copyFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../../src/agents/process.ts';
import { openAttemptSandbox } from '../../../src/agents/sandbox/attempt.ts';
import type { Resolve } from '../../../src/agents/sandbox/upstream.ts';
import { readFenceState } from '../../../src/agents/sandbox/fence.ts';
import { runWorker, type WorkerOptions } from '../../../src/agents/worker.ts';
import type { SandboxRequest } from '../../../src/engine/sandbox.ts';
import { makeTask } from '../helpers.ts';
import { HERE, listen, makeWorld, processesOf, RUNNER, settledProcessesOf, setup, TEST_NET, testNet, type World } from './world.ts';
import { CANARY, OAUTH_CANARY, startModelStandIn, type ModelStandIn } from './model-standin.ts';

const API_HOST = 'api.anthropic.test';

function worldAt(base: string): World {
  return { base, prefix: join(base, 'db'), runnerHome: join(base, 'runner-home'), workspace: join(base, 'runner-home/work/repo/repo'), tempDir: join(base, 'runner-home/work/_temp'), probe: join(base, 'worker-agent.mjs'), statePath: join(base, 'db/etc/baton/fence.json') };
}

/** The proxy's resolver in the test: the stand-in API's name → 127.0.0.2, nothing else resolves. */
const resolve: Resolve = async (host) => {
  if (host === API_HOST || host === 'api.anthropic.com') return ['127.0.0.2'];
  throw Object.assign(new Error(`${host} does not resolve in the test`), { code: 'ENOTFOUND' });
};

async function worker(): Promise<void> {
  const w = makeWorld();
  copyFileSync(join(HERE, 'worker-agent.mjs'), join(w.base, 'worker-agent.mjs'));
  chmodSync(join(w.base, 'worker-agent.mjs'), 0o644);
  const servers: Server[] = [];
  let model: ModelStandIn | null = null;
  try {
    giveRunnerLogins(w);
    setup(w);
    testNet();
    // The stand-in model API (HTTPS, its own certificate) and the stand-in `claude` the key attempt runs.
    model = await startModelStandIn('127.0.0.2');
    writeFileSync(join(w.base, 'model-ca.pem'), model.ca, { mode: 0o644 });
    copyFileSync(join(HERE, 'key-agent.mjs'), join(w.base, 'key-agent.mjs'));
    chmodSync(join(w.base, 'key-agent.mjs'), 0o644);
    mkdirSync(join(w.base, 'bin'), { mode: 0o755 });
    mkdirSync(join(w.base, 'agent-drop'));
    chmodSync(join(w.base, 'agent-drop'), 0o1777);
    writeFileSync(join(w.base, 'bin/claude'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(w.base, 'key-agent.mjs'))} "$@"\n`, { mode: 0o755 });
    const state = readFenceState(w.statePath)!;
    const api = createHttpServer((_req, res) => res.end('api-here'));
    // Another user's listener on loopback (root's here), as a service container mapped to localhost is.
    let directHeard = 0;
    const direct = createServer((s) => (directHeard++, s.end('direct-here\n')));
    servers.push(api as unknown as Server, direct);
    const apiPort = await listen(api as unknown as Server, '127.0.0.2');
    const directPort = await listen(direct, '127.0.0.3');
    const runner = await runProcess(['setpriv', '--reuid', RUNNER, '--regid', RUNNER, '--init-groups', '--', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), 'runner', w.base, String(apiPort), String(directPort), String(model.port)], {
      cwd: join(HERE, '../../..'),
      env: { PATH: process.env.PATH, HOME: w.runnerHome },
      timeoutMs: 150_000,
    });
    if (runner.code !== 0) throw new Error(`the runner side failed (${runner.code ?? runner.signal}): ${runner.stderr.slice(-3000)}`);
    const out = JSON.parse(runner.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    console.log(JSON.stringify({ ...out, agentUid: state.user.uid, ports: { apiPort, directPort }, directHeard, leftAtEnd: await settledProcessesOf(state.user.uid), keySeen: keySeen(w, model) }));
  } finally {
    for (const s of servers) s.close();
    await model?.close();
    rmSync(w.base, { recursive: true, force: true });
  }
}

/**
 * What the key attempt's agent could read (agent-drop/saw.json: environment, /proc, home, checkout,
 * temp folder), searched for the canary by where; and what key the stand-in API received.
 */
function keySeen(w: World, model: ModelStandIn) {
  const saw = JSON.parse(readFileSync(join(w.base, 'agent-drop/saw.json'), 'utf8')) as { model: string; oauth: string; env: Record<string, string>; proc: Record<string, { environ: string; cmdline: string }>; files: Record<string, string> };
  const where: string[] = [];
  const secret = (text: string): boolean => [CANARY, OAUTH_CANARY, 'stand-in-login'].some((c) => text.includes(c));
  for (const [k, v] of Object.entries(saw.env)) if (secret(v)) where.push(`env ${k}`);
  for (const [pid, p] of Object.entries(saw.proc)) {
    if (secret(p.environ)) where.push(`/proc/${pid}/environ`);
    if (secret(p.cmdline)) where.push(`/proc/${pid}/cmdline`);
  }
  for (const [path, content] of Object.entries(saw.files)) if (secret(content)) where.push(path);
  const readable = Object.values(saw.proc).filter((p) => !p.environ.startsWith('(')).length;
  return { modelPort: model.port, model: saw.model, oauth: saw.oauth, agentKey: saw.env.ANTHROPIC_API_KEY, agentToken: saw.env.CLAUDE_CODE_OAUTH_TOKEN, baseUrl: saw.env.ANTHROPIC_BASE_URL, where, environsRead: readable, filesRead: Object.keys(saw.files).length, received: model.received.map((r) => ({ host: r.host, path: r.path, auth: r.auth })) };
}

async function runner(base: string, apiPort: number, directPort: number, modelPort: number): Promise<void> {
  const w = worldAt(base);
  const uid = readFenceState(w.statePath)!.user.uid;
  const env = { PATH: process.env.PATH, HOME: w.runnerHome };
  const sandbox: WorkerOptions['sandbox'] = { resolve, internalHosts: [API_HOST], fenceStatePath: w.statePath };
  const request: SandboxRequest = { network: { mode: 'allow', allow: [`${API_HOST}:${apiPort}`] }, limits: { cpuSeconds: 120, memoryMb: null, processes: 512 }, required: true };
  const config = { allowed: `${API_HOST}:${apiPort}`, directHost: '127.0.0.3', directPort, testNetHost: TEST_NET.far, workerPid: process.pid };
  const agentTask = (run: string[], over: Parameters<typeof makeTask>[0] = {}) =>
    makeTask({ backend: { uses: 'command', env: {}, run }, outputsSchema: null, env: { PROBE_CONFIG: JSON.stringify(config) }, sandbox: request, timeoutMinutes: 2, ...over });
  const shown = (r: Awaited<ReturnType<typeof runWorker>>) => ({ status: r.result.status, error: r.result.error, outputs: r.result.outputs, sandbox: r.result.sandbox, changes: r.result.changes.map((c) => c.path), transcript: r.transcript.slice(-2000) });

  const probe = shown(await runWorker(agentTask([process.execPath, w.probe]), { cwd: w.workspace, env, sandbox }));
  const leftAfterProbe = await settledProcessesOf(uid);

  // The claude-code backend with the job's Anthropic key (the canary): the proxy holds it, the agent gets a placeholder.
  const keyRequest: SandboxRequest = { ...request, network: { mode: 'allow', allow: [`api.anthropic.com:${modelPort}`] } };
  // The stand-in listens on another port than 443: the job names it as its gateway, as a job with one of its own does.
  const keyEnv = { ...env, PATH: `${join(base, 'bin')}:${env.PATH}`, ANTHROPIC_API_KEY: CANARY, CLAUDE_CODE_OAUTH_TOKEN: OAUTH_CANARY, ANTHROPIC_BASE_URL: `https://api.anthropic.com:${modelPort}` };
  const keySandbox = { ...sandbox, internalHosts: ['api.anthropic.com'], modelCa: readFileSync(join(base, 'model-ca.pem'), 'utf8') };
  const keyAttempt = shown(await runWorker(makeTask({ backend: { uses: 'claude-code', env: {} }, outputsSchema: null, env: { KEY_AGENT_SAW: join(base, 'agent-drop/saw.json') }, sandbox: keyRequest, timeoutMinutes: 2 }), { cwd: w.workspace, env: keyEnv, sandbox: keySandbox }));

  // A run step that spins past its CPU limit.
  const cpu = shown(
    await runWorker(makeTask({ kind: 'agent', agent: null, backend: null, prompt: null, command: 'while :; do :; done', outputsSchema: null, sandbox: { ...request, limits: { cpuSeconds: 1, memoryMb: null, processes: 512 } }, timeoutMinutes: 2 }), { cwd: w.workspace, env, sandbox }),
  );

  // A CLI whose tool runs into a limit, takes a moment to report it, and the CLI says only its own words and exits 1.
  const viaCli = (tool: string): string[] => [process.execPath, '-e', `require('node:child_process').spawnSync(process.execPath, ['-e', ${JSON.stringify(tool)}], { stdio: 'ignore' }); console.error('the-cli: a tool failed'); process.exit(1);`];
  const memory = shown(
    await runWorker(agentTask(viaCli('const a = []; for (;;) a.push(Buffer.alloc(16 << 20, 1));'), { sandbox: { ...request, limits: { cpuSeconds: 120, memoryMb: 256, processes: 512 } } }), { cwd: w.workspace, env, sandbox }),
  );
  const processes = shown(
    await runWorker(
      agentTask(viaCli("const { spawn } = require('node:child_process'); const next = () => spawn('sleep', ['30']).on('spawn', next).on('error', () => setTimeout(() => process.exit(1), 500)); next();"), { sandbox: { ...request, limits: { cpuSeconds: 120, memoryMb: null, processes: 40 } } }),
      { cwd: w.workspace, env, sandbox },
    ),
  );

  // A step that requires the sandbox on a machine where the setup step did not run.
  const marker = join(w.workspace, 'agent-started.txt');
  const required = shown(await runWorker(agentTask(['/bin/sh', '-c', 'echo started > agent-started.txt']), { cwd: w.workspace, env, sandbox: { ...sandbox, fenceStatePath: join(base, 'no-fence.json') } }));
  const requiredStarted = existsSync(marker);

  // An agent that outlives its time limit and leaves a process in a session of its own.
  const timedOut = shown(await runWorker(agentTask(['/bin/sh', '-c', 'setsid sleep 300 </dev/null >/dev/null 2>&1 & sleep 300'], { timeoutMinutes: 0.03 }), { cwd: w.workspace, env, sandbox, killGraceMs: 200 }));
  const leftAfterTimeout = processesOf(uid).length;

  const login = await loginAttempt(w, env, request, sandbox!);

  console.log(JSON.stringify({ runnerUid: process.getuid!(), probe, leftAfterProbe, keyAttempt, cpu, memory, processes, required, requiredStarted, timedOut, leftAfterTimeout, login }));
}

/** The login a `claude login` left in the runner's home (a stand-in: what matters is that it is the runner's). */
const LOGIN = '{"claudeAiOauth":{"accessToken":"stand-in-login"}}';

/**
 * The runner's home as the job finds it, before the fence's setup: a login of claude's, one
 * the runner itself cannot read (gh's), and codex's, readable by all as `mkdir` leaves it.
 */
function giveRunnerLogins(w: World): void {
  const home = w.runnerHome;
  const { uid, gid } = statSync(home);
  for (const [file, content, mode] of [
    ['.claude/.credentials.json', LOGIN, 0o600],
    ['.config/gh/hosts.yml', 'unreadable\n', 0o000],
    ['.codex/auth.json', '{"not":"this backend\'s"}', 0o644],
  ] as const) {
    mkdirSync(join(home, dirname(file)), { recursive: true, mode: 0o755 });
    writeFileSync(join(home, file), content, { mode });
    chmodSync(join(home, file), mode);
    const parts = file.split('/');
    for (let i = 1; i <= parts.length; i++) chownSync(join(home, ...parts.slice(0, i)), uid, gid);
  }
}

/**
 * An attempt of a CLI that signs in by stored login files, opened as the worker opens it (the
 * `command` backend has none): of the files it names, the runner's home holds one, another the
 * runner itself cannot read, and a third not at all; codex's login there is not named. The
 * fenced agent reports what its home holds and what of the runner's it can read.
 */
async function loginAttempt(w: World, env: NodeJS.ProcessEnv, request: SandboxRequest, o: Omit<NonNullable<WorkerOptions['sandbox']>, 'models'>) {
  const home = w.runnerHome;
  // What a later step of the job leaves in the runner's home after the fence's setup ran, readable by all.
  mkdirSync(join(home, '.late'), { mode: 0o755 });
  writeFileSync(join(home, '.late/token'), 'written after the setup\n', { mode: 0o644 });
  const sandbox = await openAttemptSandbox({ request, agent: null, workerEnv: env, loginFiles: ['.claude/.credentials.json', '.config/gh/hosts.yml', '.gemini/oauth_creds.json'], ...o });
  try {
    const script = [
      'echo "login=$(cat "$HOME/.claude/.credentials.json")"',
      'echo "mode=$(stat -c "%a %u" "$HOME/.claude/.credentials.json")"',
      'echo "homeFiles=$(cd "$HOME" && find . -mindepth 1 | sort | tr "\n" " ")"',
      `cat ${JSON.stringify(join(home, '.codex/auth.json'))} >/dev/null 2>&1 && echo runnerFile=read || echo runnerFile=refused`,
      `ls ${JSON.stringify(home)} >/dev/null 2>&1 && echo runnerHome=listed || echo runnerHome=refused`,
      `cat ${JSON.stringify(join(home, '.late/token'))} >/dev/null 2>&1 && echo lateFile=read || echo lateFile=refused`,
    ].join('; ');
    const r = await runProcess(['/bin/sh', '-c', script], { cwd: w.workspace, env: { ...env, ...sandbox.env }, timeoutMs: 60_000, ...(sandbox.fence && { fence: sandbox.fence }) });
    const seen = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]));
    const notes: string[] = [];
    await sandbox.finish(notes);
    return { fenced: sandbox.fenced, code: r.code, stderr: r.stderr, seen, transcript: notes.join('\n'), loginContent: LOGIN };
  } finally {
    await sandbox.close();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'worker') await worker();
else if (mode === 'runner') await runner(rest[0]!, Number(rest[1]), Number(rest[2]), Number(rest[3]));
else throw new Error(`worker-scenario: unknown mode ${mode}`);
