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
//                that many processes — which is why the agent has a user of its own.
//
// Detection is partly a heuristic, and said to be one: a process killed by SIGXCPU is
// certain; for memory and processes the kernel only returns an error to the process that
// asked, so what is read is how the agent's tools report it (strerror texts, Node's and
// Python's messages) in what the attempt printed, and only when the attempt failed.
import type { ResourceLimits } from '../../engine/sandbox.ts';

export type LimitHit = 'cpu' | 'memory' | 'processes';

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

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The limit that ended an attempt, or null. Only limits that were set count, and only a
 * failed attempt (non-zero exit or a signal): a tool that hit a limit and recovered did not
 * end it. A CPU kill is read from the signal (certain); the others from the output (heuristic).
 */
export function limitHit(ended: Ended, limits: ResourceLimits): LimitHit | null {
  if (ended.code === 0 && ended.signal === null) return null;
  if (limits.cpuSeconds !== null && ended.signal === 'SIGXCPU') return 'cpu';
  const text = `${ended.stderr}\n${ended.stdout}`;
  const said = (patterns: RegExp[]) => patterns.some((p) => p.test(text));
  if (limits.cpuSeconds !== null && said(CPU)) return 'cpu';
  if (limits.processes !== null && said(PROCESSES)) return 'processes';
  if (limits.memoryMb !== null && said(MEMORY)) return 'memory';
  return null;
}

/** The failure reason an attempt that ran into `hit` records. */
export function limitReason(hit: LimitHit, limits: ResourceLimits): string {
  if (hit === 'cpu') return `the agent ran into its CPU limit (${limits.cpuSeconds} s of CPU time per process) and was killed`;
  if (hit === 'memory') return `the agent ran into its memory limit (${limits.memoryMb} MiB per process): an allocation failed`;
  return `the agent ran into its process limit (${limits.processes} processes at once): a fork failed`;
}
