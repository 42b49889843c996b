// A local run's record on disk, `.baton/runs/<id>/`:
//   events.jsonl  every event, appended (and flushed) before its effects: the source of truth
//   state.json    the state after the last event (a cache: `resume` replays the events)
//   record.md     the same markdown as the GitHub status comment
//   run.json      where the run's workflow came from, so `resume` can load it again
//   workflow.json the workflow as the run started with it, so `cancel`, `status` and `list`
//                 keep working after the file is edited or removed
//   lock          pid of the process driving the run (one writer per run)
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent, RunState } from '../../engine/index.ts';
import type { LoadedWorkflow } from '../../manifest/types.ts';
import { decodeState, encodeState } from '../../engine/index.ts';

export interface RunMeta {
  runId: string;
  workflow: string;
  /** The manifest file the run started from (resume reloads it and refuses a changed one). */
  file: string;
  repo: string;
  createdAt: number;
  /** A run bound to a pull request (a local branch): where its changes start, for the reviewer's diff. */
  reviewFrom?: string;
}

export const batonDir = (repo: string): string => join(repo, '.baton');
export const runsDir = (repo: string): string => join(batonDir(repo), 'runs');
export const worktreesDir = (repo: string, runId: string): string => join(batonDir(repo), 'worktrees', runId);

export class RunNotFoundError extends Error {}

export class RunStore {
  readonly dir: string;
  constructor(
    readonly repo: string,
    readonly runId: string,
  ) {
    this.dir = join(runsDir(repo), runId);
  }

  static open(repo: string, runId: string): RunStore {
    const store = new RunStore(repo, runId);
    if (!/^[a-z0-9][a-z0-9._-]*$/i.test(runId) || !existsSync(join(store.dir, 'run.json'))) {
      const known = listRunIds(repo);
      throw new RunNotFoundError(`no local run \`${runId}\` in ${runsDir(repo)}${known.length ? `; runs: ${known.slice(-10).join(', ')}` : ' (no runs yet)'}`);
    }
    return store;
  }

  /** Allocates `<workflow>-<n>`: the directory is created exclusively, so two starts never share an id. */
  static create(repo: string, meta: Omit<RunMeta, 'runId'>, taken: (id: string) => boolean): RunStore {
    mkdirSync(runsDir(repo), { recursive: true });
    for (let n = 1; ; n++) {
      const id = `${meta.workflow}-${n}`;
      const store = new RunStore(repo, id);
      if (taken(id) || existsSync(store.dir)) continue;
      try {
        mkdirSync(store.dir);
      } catch {
        continue; // another process took it first
      }
      writeFileSync(join(store.dir, 'run.json'), JSON.stringify({ runId: id, ...meta }, null, 2) + '\n');
      writeFileSync(join(store.dir, 'events.jsonl'), '');
      return store;
    }
  }

  meta(): RunMeta {
    return JSON.parse(readFileSync(join(this.dir, 'run.json'), 'utf8')) as RunMeta;
  }

  /** Keeps the workflow the run starts with (normalised, with its hash). */
  saveStartedWorkflow(loaded: LoadedWorkflow): void {
    atomicWrite(join(this.dir, 'workflow.json'), JSON.stringify(loaded) + '\n');
  }

  /** The workflow the run started with; null for a run recorded before baton kept it. */
  startedWorkflow(): LoadedWorkflow | null {
    const path = join(this.dir, 'workflow.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as LoadedWorkflow) : null;
  }

  /** Appends one event and flushes it to disk before anything acts on it. */
  append(event: RunEvent): void {
    const fd = openSync(join(this.dir, 'events.jsonl'), 'a');
    try {
      writeSync(fd, JSON.stringify(event) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** The events so far. A last line cut short by a kill mid-write is ignored (it never took effect). */
  events(): RunEvent[] {
    const path = join(this.dir, 'events.jsonl');
    if (!existsSync(path)) return [];
    const lines = readFileSync(path, 'utf8').split('\n');
    const out: RunEvent[] = [];
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        out.push(JSON.parse(line) as RunEvent);
      } catch (err) {
        if (i < lines.length - 2) throw new Error(`${path}:${i + 1}: not a JSON event (${(err as Error).message})`, { cause: err });
      }
    });
    return out;
  }

  saveState(state: RunState, record: string | null): void {
    atomicWrite(join(this.dir, 'state.json'), encodeState(state));
    if (record !== null) atomicWrite(join(this.dir, 'record.md'), record);
  }

  state(): RunState | null {
    const path = join(this.dir, 'state.json');
    return existsSync(path) ? decodeState(readFileSync(path, 'utf8')) : null;
  }

  /** Extra files of the run (worker transcripts, check output). */
  write(name: string, text: string): string {
    const path = join(this.dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  log(line: string): void {
    appendFileSync(join(this.dir, 'host.log'), line.endsWith('\n') ? line : line + '\n');
  }

  /** Takes the run's lock; returns the pid of the live process that holds it instead, if any. */
  lock(): number | null {
    const path = join(this.dir, 'lock');
    const holder = this.holder();
    if (holder !== null && holder !== process.pid) return holder;
    writeFileSync(path, String(process.pid));
    return null;
  }

  holder(): number | null {
    const path = join(this.dir, 'lock');
    if (!existsSync(path)) return null;
    const pid = Number(readFileSync(path, 'utf8'));
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  }

  unlock(): void {
    if (this.holder() === process.pid) rmSync(join(this.dir, 'lock'), { force: true });
  }
}

export function listRunIds(repo: string): string[] {
  const dir = runsDir(repo);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'run.json')))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function atomicWrite(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
