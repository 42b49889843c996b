// A Redis server of the test's own, for what baton shares through REDIS_URL (the write budget,
// Probot's throttle): `redis-server` on a free loopback port, nothing saved to disk, answered
// PING before it is handed out, stopped by the test. Never skipped: without `redis-server` on
// the PATH the test fails and says what to install (README "Set up"; `.ci/run` installs it).
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`: what REDIS_URL would say. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const MISSING = 'these tests need redis-server on the PATH (Debian: `apt-get install --no-install-recommends redis-server`; .ci/run installs it)';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** One PING over a plain socket: true once the server answers PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a fresh redis-server on a free loopback port and waits until it answers PING. */
export async function startRedisServer(): Promise<RedisServer> {
  // A port found free may be taken before the server binds it: then another.
  let why = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Never outlives the test process, whatever becomes of the test (a timeout, a hook that hangs).
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    const stop = async () => {
      process.off('exit', orphaned);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited(child);
    };
    let output = '';
    // Ready when it says so (its log line), or failed when it exits or cannot be started.
    const ready = await new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const seen = (d: Buffer) => {
        output += d.toString();
        if (/Ready to accept connections/i.test(output)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(error.code === 'ENOENT' ? `${MISSING}: ${error.message}` : `redis-server could not be started: ${error.message}`));
      });
    });
    if (ready && (await pong(port))) return { url: `redis://127.0.0.1:${port}`, port, stop };
    await stop();
    why = output.trim().slice(-2000);
    if (!/Address already in use/i.test(output)) break;
  }
  throw new Error(`redis-server did not answer PING on a loopback port: ${why}`);
}
