// The agent's resource limits as prlimit options, and which limit, if any, ended an attempt.
//
// Enforcement is the kernel's (setrlimit, inherited by every process the agent starts):
//   cpuSeconds → RLIMIT_CPU, per process: SIGXCPU at the limit, SIGKILL a second later.
//   memoryMb   → RLIMIT_DATA, per process: the private writable memory (heap, anonymous
//                mappings) it may hold; an allocation past it fails with ENOMEM. Not
//                RLIMIT_AS: Node reserves address space it never touches (WebAssembly
//                reserves 10 GiB per memory), so under any useful RLIMIT_AS a Node CLI
//                cannot even instantiate WebAssembly.
//   processes  → RLIMIT_NPROC, per user: fork fails with EAGAIN once the agent's user has
//                that many processes and threads — which is why the agent has a user of its own.
//
// Detection. A process killed by SIGXCPU is certain. For memory and processes the kernel only
// returns an error to the process that asked, and the CLI that ends the attempt usually prints
// its own words about a tool that failed ("claude exited with code 1"), so what the agent's
// processes did is measured instead: while the attempt runs, the worker reads /proc for the
// agent's user (limitWatch) — how many processes and threads it has at once (RLIMIT_NPROC's
// count), and each process's VmData (RLIMIT_DATA's). A failed attempt during which the user
// stood at its process limit, or a process came within a tenth of its data limit, ran into
// that limit. The reads come every 100 ms, every 5 ms while a process holds more than half its
// data limit (a Node process aborts the moment an allocation fails). A reading can still miss
// a process that fills its memory and dies between two reads, or a fork that fails and is given
// up at once; the error texts of the agent's tools (strerror, Node's and Python's messages) in
// what the attempt printed are the second reading.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { ResourceLimits } from '../../engine/sandbox.ts';

/** A resource limit of the agent's processes; `cost` is the proxy's cost cap (proxy-meter.ts). */
export type LimitHit = 'cpu' | 'memory' | 'processes' | 'cost';

/** prlimit's options for `limits` (only those set). */
export function prlimitOptions(limits: ResourceLimits): string[] {
  const out: string[] = [];
  const cpu = limits.cpuSeconds;
  // soft < hard: the process first gets SIGXCPU, which names the cause, then SIGKILL.
  if (cpu !== null) out.push(`--cpu=${whole('cpuSeconds', cpu)}:${whole('cpuSeconds', cpu) + 1}`);
  if (limits.memoryMb !== null) out.push(`--data=${whole('memoryMb', limits.memoryMb) * 1024 * 1024}`);
  if (limits.processes !== null) out.push(`--nproc=${whole('processes', limits.processes)}`);
  return out;
}

function whole(name: string, n: number): number {
  if (!Number.isFinite(n) || n < 1) throw new Error(`resource limit ${name} must be a number of at least 1, got ${n}`);
  return Math.ceil(n);
}

const CPU = [/CPU time limit exceeded/i, /\bSIGXCPU\b/];
const MEMORY = [
  /Cannot allocate memory/i, // strerror(ENOMEM)
  /\bENOMEM\b/,
  /JavaScript heap out of memory/i,
  /Array buffer allocation failed/i,
  /WebAssembly\.Memory\(\): could not allocate memory/i,
  /\bMemoryError\b/, // Python
  /\bxrealloc: cannot allocate\b|\bxmalloc: cannot allocate\b/, // bash
  /\bout of memory\b/i,
];
const PROCESSES = [
  /Resource temporarily unavailable/i, // strerror(EAGAIN), what fork reports
  /\bfork: retry\b/,
  /\bspawn\b.*\bEAGAIN\b|\bEAGAIN\b.*\bspawn\b/,
  /\[Errno 11\]/, // Python's BlockingIOError from fork
];

/** What the agent's processes were seen holding while the attempt ran. */
export interface Peaks {
  /** Processes and threads of the agent's user at once (what RLIMIT_NPROC counts). */
  tasks: number;
  /** The largest VmData of one of its processes, in KiB (what RLIMIT_DATA limits). */
  dataKiB: number;
}

/** A process counts as at its data limit within this share of it: the allocation that failed asked for the rest. */
const NEAR_DATA_LIMIT = 0.9;

/** One reading of /proc: the processes and threads of `uid`, and the largest VmData among them. */
export function readPeaks(uid: number, proc = '/proc'): Peaks {
  let tasks = 0;
  let dataKiB = 0;
  let names: string[];
  try {
    names = readdirSync(proc);
  } catch {
    return { tasks, dataKiB };
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // /proc/<pid> belongs to the process's user; status says the rest (a process may end meanwhile).
      if (statSync(`${proc}/${name}`).uid !== uid) continue;
      const status = readFileSync(`${proc}/${name}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) continue;
      tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
      dataKiB = Math.max(dataKiB, Number(/^VmData:\s+(\d+) kB/m.exec(status)?.[1] ?? 0));
    } catch {
      // gone
    }
  }
  return { tasks, dataKiB };
}

export interface LimitWatch {
  /** The highest readings since the last call (one more is taken now): each process the attempt runs is judged by its own time. */
  take(): Peaks;
  stop(): void;
}

/** A process past this share of its data limit is read more often: the rest may go in milliseconds. */
const HOT_DATA = 0.5;

/**
 * Reads /proc for the agent's user every `everyMs` while the attempt runs, keeping the highest
 * readings; every `hotMs` while one of its processes holds more than half its data limit, so that
 * the last stretch before an allocation fails (and a Node process aborts) is seen. Only the
 * limits that are set are watched; with neither, nothing is read.
 */
export function limitWatch(uid: number, limits: ResourceLimits, o: { everyMs?: number; hotMs?: number; proc?: string } = {}): LimitWatch {
  const high: Peaks = { tasks: 0, dataKiB: 0 };
  const hotKiB = limits.memoryMb === null ? Infinity : limits.memoryMb * 1024 * HOT_DATA;
  let hot = false;
  const read = (): void => {
    const now = readPeaks(uid, o.proc);
    high.tasks = Math.max(high.tasks, now.tasks);
    high.dataKiB = Math.max(high.dataKiB, now.dataKiB);
    hot = now.dataKiB > hotKiB;
  };
  const watched = limits.memoryMb !== null || limits.processes !== null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const next = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      read();
      next();
    }, hot ? (o.hotMs ?? 5) : (o.everyMs ?? 100));
    timer.unref();
  };
  if (watched) next();
  return {
    take() {
      if (watched) read();
      const seen = { ...high };
      high.tasks = 0;
      high.dataKiB = 0;
      return seen;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The limit that ended an attempt, and what shows it; null when none did. Only limits that were
 * set count, and only a failed attempt (non-zero exit or a signal): a tool that hit a limit and
 * recovered did not end it. A CPU kill is read from the signal; memory and processes from what
 * the agent's processes were seen holding (`peaks`), then from the output.
 */
export function limitHit(ended: Ended, limits: ResourceLimits, peaks: Peaks = { tasks: 0, dataKiB: 0 }): Hit | null {
  if (ended.code === 0 && ended.signal === null) return null;
  if (limits.cpuSeconds !== null && ended.signal === 'SIGXCPU') return { limit: 'cpu', seen: 'killed by SIGXCPU' };
  if (limits.processes !== null && peaks.tasks >= limits.processes) return { limit: 'processes', seen: `its user had ${peaks.tasks} processes and threads at once` };
  if (limits.memoryMb !== null && peaks.dataKiB >= limits.memoryMb * 1024 * NEAR_DATA_LIMIT) return { limit: 'memory', seen: `a process of the agent held ${Math.round(peaks.dataKiB / 1024)} MiB of data` };
  const text = `${ended.stderr}\n${ended.stdout}`;
  const said = (patterns: RegExp[]) => patterns.some((p) => p.test(text));
  if (limits.cpuSeconds !== null && said(CPU)) return { limit: 'cpu', seen: 'its output says so' };
  if (limits.processes !== null && said(PROCESSES)) return { limit: 'processes', seen: 'a fork failed' };
  if (limits.memoryMb !== null && said(MEMORY)) return { limit: 'memory', seen: 'an allocation failed' };
  return null;
}

export interface Hit {
  limit: LimitHit;
  /** What showed it, for the reason. */
  seen: string;
}

/** The failure reason an attempt that ran into `hit` records: the limit named, with its value. */
export function limitReason(hit: Hit, limits: ResourceLimits): string {
  if (hit.limit === 'cpu') return `the agent ran into its CPU limit (${limits.cpuSeconds} s of CPU time per process) and was killed`;
  if (hit.limit === 'memory') return `the agent's memory limit of ${limits.memoryMb} MiB per process was reached (${hit.seen}), and the attempt failed`;
  return `the agent's process limit of ${limits.processes} was reached (${hit.seen}), and the attempt failed`;
}
