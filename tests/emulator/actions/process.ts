// Runs one step's subprocess the way a runner does: its own process group (so a timeout
// or a cancel kills the whole tree, not just the shell), output streamed into the job
// log line by line, and a hard deadline.
import { spawn } from 'node:child_process';

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why the process was stopped by the runner, if it was. */
  stopped?: 'timeout' | 'cancelled';
}

export interface ProcessOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** After SIGTERM, how long a process gets before SIGKILL (GitHub gives a few seconds too). */
const KILL_GRACE_MS = 1_000;

export function runProcess(command: string, args: string[], opts: ProcessOptions): Promise<ProcessResult> {
  return new Promise((resolve) => {
    if (opts.signal.aborted) {
      resolve({ exitCode: null, signal: null, stopped: 'cancelled' });
      return;
    }
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stopped: ProcessResult['stopped'];
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'cancelled'): void => {
      if (stopped) return;
      stopped = why;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
    const onAbort = (): void => stop('cancelled');
    opts.signal.addEventListener('abort', onAbort, { once: true });

    const lines = () => {
      let rest = '';
      return {
        push(chunk: Buffer): void {
          rest += chunk.toString('utf8');
          const parts = rest.split(/\r?\n/);
          rest = parts.pop() ?? '';
          for (const p of parts) opts.log(p);
        },
        flush(): void {
          if (rest !== '') opts.log(rest);
          rest = '';
        },
      };
    };
    const out = lines();
    const err = lines();
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      opts.log(`##[error]${e.message}`);
      // A process that never started emits no 'close'.
      if (child.pid === undefined) finish(127, null);
    });
    // A shell may exit while background children still hold its output open: none may
    // outlive the step, or 'close' would wait for them.
    child.on('exit', () => killGroup(child.pid, 'SIGKILL'));
    let done = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal.removeEventListener('abort', onAbort);
      out.flush();
      err.flush();
      resolve({ exitCode, signal, ...(stopped ? { stopped } : {}) });
    };
    child.on('close', finish);
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
