// Running one agent process: stdin in, stdout/stderr captured (bounded), and a deadline or
// an abort that stops the whole process tree, not just the CLI (agents start shells, test
// runners, dev servers that would otherwise keep running and keep the pipes open). When it
// ends, nothing of its tree is left running — not even a process that left its process
// group (sweep.ts) — so nothing it started can wait for a later step's token.
//
// Under the sandbox's fence (ProcessOptions.fence) the process runs as the agent's own user:
// the worker can neither read those processes' environments (the tree marker) nor signal
// them once they left the group, so the fence's sweep — every process of the agent's user
// killed, as that user — runs at each point the marker kill runs: at a timeout or an abort,
// when the CLI exits, and when it is done.
import { spawn } from 'node:child_process';
import { killMarked, newTreeMarker, TREE_MARKER } from './sweep.ts';

export interface ProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string;
  /** Milliseconds after which the process tree is killed; null = no limit. */
  timeoutMs: number | null;
  signal?: AbortSignal;
  /** Bytes kept per stream; beyond it the start is dropped. */
  maxCapture?: number;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Runs the process as the sandbox's agent user (src/agents/sandbox/attempt.ts). */
  fence?: ProcessFence;
}

/** How a process is started inside the fence and how what it left is ended. */
export interface ProcessFence {
  /** The command and environment that run `argv` with `env` as the agent's user. */
  wrap(argv: string[], env: NodeJS.ProcessEnv): { argv: string[]; env: NodeJS.ProcessEnv };
  /** Kills every process of the agent's user (synchronously; never throws). */
  sweep(): void;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** The process could not be started at all (ENOENT, EACCES…). */
  spawnError: Error | null;
}

const DEFAULT_CAPTURE = 16 * 1024 * 1024;

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.max && this.chunks.length > 1) {
      const first = this.chunks.shift()!;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }
  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped ? `[… ${this.dropped} bytes dropped …]\n${body}` : body;
  }
}

/** Signals the whole process group (the child was started as its leader). */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export function runProcess(argv: string[], opts: ProcessOptions): Promise<ProcessResult> {
  return new Promise((resolvePromise) => {
    const out = new Capture(opts.maxCapture ?? DEFAULT_CAPTURE);
    const err = new Capture(opts.maxCapture ?? DEFAULT_CAPTURE);
    let timedOut = false;
    let aborted = false;
    let done = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const timers: NodeJS.Timeout[] = [];
    const marker = newTreeMarker();

    const env = { ...opts.env, [TREE_MARKER]: marker };
    const cmd = opts.fence ? opts.fence.wrap(argv, env) : { argv, env };
    // detached: the child leads a new process group, so one kill reaches its whole tree.
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), {
      cwd: opts.cwd,
      env: cmd.env,
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
    });

    const finish = (spawnError: Error | null): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      // The CLI has ended: whatever of its tree still runs, in its group or not, goes now.
      killGroup(child.pid, 'SIGKILL');
      // Again until none is found: one may have forked between a look and its kill.
      for (let round = 0; round < 5 && killMarked(marker, 'SIGKILL') > 0; round++);
      opts.fence?.sweep();
      opts.signal?.removeEventListener('abort', onAbort);
      resolvePromise({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        aborted,
        spawnError,
      });
    };

    const stop = (): void => {
      killGroup(child.pid, 'SIGTERM');
      killMarked(marker, 'SIGTERM');
      // The agent's user's processes cannot be sent the worker's SIGTERM: they end at once.
      opts.fence?.sweep();
      const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), opts.killGraceMs ?? 3000);
      t.unref();
      timers.push(t);
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };

    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => finish(e));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the CLI left running in the background goes with it; a grandchild that
      // holds the pipes open must not keep us waiting for 'close'.
      killGroup(child.pid, 'SIGTERM');
      killMarked(marker, 'SIGTERM');
      opts.fence?.sweep();
      const t = setTimeout(() => {
        killGroup(child.pid, 'SIGKILL');
        child.stdout.destroy();
        child.stderr.destroy();
        finish(null);
      }, 2000);
      t.unref();
      timers.push(t);
    });
    child.on('close', () => finish(null));

    // EPIPE when the program does not read its stdin is not our problem.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');

    if (opts.timeoutMs !== null) {
      const t = setTimeout(
        () => {
          timedOut = true;
          stop();
        },
        Math.max(0, opts.timeoutMs),
      );
      timers.push(t);
    }
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort);
  });
}
