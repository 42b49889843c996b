// Finding what an agent left running after it ended. Killing the agent's process group
// misses a process that started a session of its own (setsid, `detached` spawns, daemons),
// which could then wait for a later step of the job — the artifact upload, whose process
// holds the runner's token — and read that step's environment. Every process of the agent's
// tree inherits a marker variable; on Linux each such process still running is found
// through /proc/<pid>/environ (readable for the worker's own user's processes) and killed.
// A process that re-executes itself with a scrubbed environment escapes this; on GitHub
// the runner kills what is left at the end of the job.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export const TREE_MARKER = 'BATON_PROCESS_TREE';

/** A fresh marker value for one process tree. */
export function newTreeMarker(): string {
  return randomBytes(12).toString('hex');
}

/** Pids of running processes whose environment carries `TREE_MARKER=value` (Linux; [] elsewhere). */
export function markedProcesses(value: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${TREE_MARKER}=${value}\0`);
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`);
      const at = env.indexOf(needle);
      if (at === 0 || (at > 0 && env[at - 1] === 0)) found.push(Number(name));
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

/** Sends `signal` to every process still carrying the marker; returns how many there were. */
export function killMarked(value: string, signal: NodeJS.Signals): number {
  const pids = markedProcesses(value);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
  return pids.length;
}
