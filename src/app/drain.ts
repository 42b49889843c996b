// A deploy stops the App with SIGTERM (Docker, Kubernetes, systemd): deliveries were
// acknowledged before their work, so the process stops taking new ones and finishes what it
// accepted before it exits — bounded, since the platform kills it after its grace period
// (Kubernetes: 30 s by default). Work still running then is lost to this process; the sweep of
// another replica (or of the next start) finds runs from GitHub, and an operator can redeliver
// the deliveries named in the log (docs/operations.md).

export interface Drainable {
  /** Resolves when no accepted work is left. */
  idle(): Promise<void>;
  /** Accepted work not finished. */
  readonly busy: number;
}

/** Waits for accepted work, at most `timeoutMs`; returns how many deliveries were still being worked on. */
export async function drain(work: Drainable, timeoutMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    await Promise.race([work.idle(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
  return work.busy;
}

/** The drain time from BATON_DRAIN_TIMEOUT (seconds; default 25, under Kubernetes' 30-second grace period). */
export function drainTimeoutFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 25_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`BATON_DRAIN_TIMEOUT must be a number of seconds ≥ 0, got ${JSON.stringify(value)}`);
  return seconds * 1000;
}
