// The container image, exercised without Docker: the Dockerfile's build stage run from a clean
// copy of the repository (its own `npm ci` and build), its runtime stage assembled from that,
// and the image's CMD and HEALTHCHECK run: the App answers /ping from the read-only files of
// the image (so the unprivileged user can run it), and the health check fails once it stops;
// given REDIS_URL, it reaches that Redis with what the bundle carries.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../local/helpers.ts';
import { execForm, parseDockerfile, runStage, type Stage, type StageRun } from './dockerfile.ts';
import { startRedisServer } from '../support/redis-server.ts';

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1)!;
const arg = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);

let temp: string;
let image: StageRun;
let app: ChildProcess | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Every file under dir, made read-only (as root-owned files are to the `node` user). */
function readOnly(dir: string): void {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) readOnly(p);
    chmodSync(p, statSync(p).isDirectory() ? 0o555 : 0o444);
  }
  chmodSync(dir, 0o555);
}

beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'baton-image-'));
  const roots: Record<string, string> = {};
  // npm's cache from the checkout's own install: the build stage's `npm ci` fetches nothing new.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_prefer_offline: 'true', npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? temp, '.npm') };
  stages.forEach((stage, i) => {
    const root = join(temp, `stage-${i}`);
    const run = runStage(stage, { context: ROOT, root, stages: roots, env });
    if (stage.name) roots[stage.name] = root;
    if (i === stages.length - 1) image = run;
  });
  readOnly(join(image.root, 'app'));
}, 240_000);

afterAll(() => {
  app?.kill('SIGKILL');
  if (temp) {
    spawnSync('chmod', ['-R', 'u+w', temp]);
    rmSync(temp, { recursive: true, force: true });
  }
});

describe('the container image (Dockerfile)', () => {
  it('builds in one stage and runs from another, as an unprivileged user, with a health check', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(runtime.from).toBe(stages[0]!.from);
    const user = arg(runtime, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(arg(runtime, 'HEALTHCHECK')).toHaveLength(1);
    // The runtime stage installs nothing: the bundle is all the App needs.
    expect(arg(runtime, 'RUN')).toEqual([]);
  });

  it('starts from a base image pinned by digest (a moved tag changes nothing) and installs with no install scripts', () => {
    for (const stage of stages) expect(stage.from).toMatch(/^node:24-slim@sha256:[0-9a-f]{64}$/);
    const installs = stages.flatMap((stage) => arg(stage, 'RUN')).filter((r) => /\bnpm (ci|install|i|add)\b/.test(r));
    expect(installs).toEqual([expect.stringMatching(/^npm ci --ignore-scripts\b/)]);
  });

  it('holds the App bundle and only what it reads at run time', () => {
    expect(readdirSync(join(image.root, 'app')).sort()).toEqual(['app.yml', 'dist', 'package.json', 'workflows-library']);
    expect(readdirSync(join(image.root, 'app', 'dist'))).toEqual(['app.js']);
  });

  it("starts with the image's CMD and Probot's environment, answers /ping, and the HEALTHCHECK passes then fails when it stops", async () => {
    const port = await freePort();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...image.env,
      // The container listens on every interface; here, loopback on a free port.
      HOST: '127.0.0.1',
      PORT: String(port),
      APP_ID: '1',
      PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      WEBHOOK_SECRET: 'secret',
      LOG_LEVEL: 'warn',
    };
    const [cmd, ...cmdArgs] = execForm(arg(runtime, 'CMD')[0]!);
    expect(cmd).toBe('node');
    const server = spawn(process.execPath, cmdArgs, { cwd: image.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    app = server;
    let log = '';
    server.stdout.on('data', (d: Buffer) => (log += d.toString()));
    server.stderr.on('data', (d: Buffer) => (log += d.toString()));

    const [hcCmd, ...hcArgs] = execForm(arg(runtime, 'HEALTHCHECK')[0]!);
    expect(hcCmd).toBe('node');
    const healthy = () => spawnSync(process.execPath, hcArgs, { env, timeout: 10_000 }).status === 0;
    let ok = false;
    // Wait on the server answering (the health check itself), not on a sleep.
    for (let i = 0; i < 300 && !ok && server.exitCode === null; i++) {
      ok = healthy();
      if (!ok) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ok, log).toBe(true);
    expect(await fetch(`http://127.0.0.1:${port}/ping`).then((r) => r.text())).toBe('PONG');

    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
    expect(healthy()).toBe(false);
  }, 60_000);

  it('with REDIS_URL (replicas), connects to that Redis from the bundle alone: no package installed, none fetched', async () => {
    const redis = await startRedisServer();
    const watcher = new Redis(redis.url);
    // Nothing on the PATH but Node: no npx to fetch ioredis with, even where Probot's loader would
    // try (it does when it believes it runs under npx).
    const bin = join(temp, 'node-only-bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const env: NodeJS.ProcessEnv = {
      PATH: bin,
      ...image.env,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      APP_ID: '1',
      PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      WEBHOOK_SECRET: 'secret',
      LOG_LEVEL: 'warn',
      REDIS_URL: redis.url,
      npm_lifecycle_event: 'npx',
    };
    const [, ...cmdArgs] = execForm(arg(runtime, 'CMD')[0]!);
    const server = spawn(process.execPath, cmdArgs, { cwd: image.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    app = server;
    let log = '';
    server.stdout.on('data', (d: Buffer) => (log += d.toString()));
    server.stderr.on('data', (d: Buffer) => (log += d.toString()));
    try {
      // The App's clients, as Redis lists them (Probot's throttle connection: a client and its
      // subscriber), besides the watcher's own.
      const appClients = async () => String(await watcher.client('LIST')).trim().split('\n').length - 1;
      const failed = () => server.exitCode !== null || /Failed to initialize/.test(log);
      for (let i = 0; i < 300 && !failed() && (await appClients()) < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await appClients(), log).toBeGreaterThanOrEqual(2);
      expect(log).not.toMatch(/Failed to initialize|Cannot find|npx/i);
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      if (server.exitCode === null) server.kill('SIGKILL');
      await exited;
      watcher.disconnect();
      await redis.stop();
    }
  }, 60_000);
});
