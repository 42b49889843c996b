// The run service: every event for a run goes through here — serialised per run, the
// record loaded (from memory, else from the thread), the events driven through the
// engine, what should exist reconciled after a restart, and the record written once.
import { drive } from '../hosts/driver.ts';
import { emptyState, isTerminal, type RunEvent, type RunRequested, type RunState } from '../engine/index.ts';
import type { Workflow } from '../manifest/types.ts';
import { collectWorkerResult, workerRunGone } from '../hosts/github/apply.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { findWorkerRun } from '../hosts/github/dispatch.ts';
import { GitHubHost } from '../hosts/github/host.ts';
import { byName, loadManifests } from '../hosts/github/manifests.ts';
import { loadOutputs } from '../hosts/github/outputs.ts';
import { RunMemories, type RunMemory } from '../hosts/github/memory.ts';
import { makeRunId, parseRunId } from '../hosts/github/run-id.ts';
import { postOnce, readThread, type ThreadRead } from '../hosts/github/thread.ts';
import { orGone, WorkerRunGone } from '../hosts/github/worker-run.ts';
import { factsOfRun, type WorkerRunFacts } from '../hosts/github/worker-provenance.ts';
import { KeyedQueue } from './queue.ts';

export interface Log {
  info(msg: string): void;
  warn(msg: string): void;
}

export type EventSource = (memory: RunMemory, workflow: Workflow) => Promise<RunEvent[]> | RunEvent[];

export class RunService {
  readonly memories = new RunMemories();
  private readonly queue = new KeyedQueue();
  /** Run ids per thread (newest last), as far as this process knows. */
  private readonly threads = new Map<string, string[]>();

  constructor(private readonly now: () => number = Date.now) {}

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private threadKey(gh: RepoContext, number: number): string {
    return `${gh.owner}/${gh.repo}#${number}`.toLowerCase();
  }

  /** The runs of a thread, newest last (reads the thread once per process). */
  async runsOfThread(gh: RepoContext, number: number, log: Log): Promise<string[]> {
    const key = this.threadKey(gh, number);
    let ids = this.threads.get(key);
    if (!ids) {
      const read = await readThread(gh, number);
      await reportIgnored(gh, number, read, log);
      ids = read.records.map((r) => r.state.runId);
      this.threads.set(key, ids);
    }
    return ids;
  }

  /** Loads a run (memory first), then feeds it the events `source` produces. */
  onRun(gh: RepoContext, runId: string, source: EventSource, log: Log): Promise<RunState | undefined> {
    return this.queue.run(this.memories.key(gh.owner, gh.repo, runId), async () => {
      const memory = await this.load(gh, runId, log);
      if (!memory) return undefined;
      return this.process(gh, memory, source);
    });
  }

  /**
   * Starts a run for a label or a command. Serialised per thread so that the run number
   * is counted once; a redelivered start (its key is in a record already) only
   * reconciles the run it started.
   */
  start(gh: RepoContext, workflow: Workflow, request: Omit<RunRequested, 'runId'>, log: Log): Promise<RunState | undefined> {
    const number = request.thread!.number;
    return this.queue.run(`start:${this.threadKey(gh, number)}`, async () => {
      const read = await readThread(gh, number);
      const again = read.records.find((r) => r.state.appliedKeys.includes(request.key));
      if (again) return this.onRun(gh, again.state.runId, () => [], log);
      const n = read.records.filter((r) => r.state.workflow === request.workflow).length + 1;
      const runId = makeRunId(request.workflow, number, n);
      const key = this.threadKey(gh, number);
      this.threads.set(key, read.records.map((r) => r.state.runId));
      return this.queue.run(this.memories.key(gh.owner, gh.repo, runId), async () => {
        const memory: RunMemory = { state: emptyState(), commentId: null, body: '', warm: true, checksKnown: true, checkRuns: new Map(), markers: read.markers };
        const state = await this.process(gh, memory, () => [{ ...request, runId }], workflow);
        // A refused start makes no run: the thread's commands and answers stay with its last real one.
        if (state.status !== 'idle') this.threads.set(key, [...(this.threads.get(key) ?? []), runId]);
        return state;
      });
    });
  }

  private async load(gh: RepoContext, runId: string, log: Log): Promise<RunMemory | undefined> {
    const hit = this.memories.get(gh.owner, gh.repo, runId);
    if (hit) return hit;
    const parsed = parseRunId(runId);
    if (!parsed) return undefined;
    const read = await readThread(gh, parsed.thread);
    await reportIgnored(gh, parsed.thread, read, log);
    const found = read.records.find((r) => r.state.runId === runId);
    if (!found) {
      log.warn(`no trusted record of run ${runId} on #${parsed.thread}; the event is ignored`);
      return undefined;
    }
    // Outputs kept in check runs come back whole: the engine always sees full outputs.
    const state = await loadOutputs(gh, this.memories.outputs, found.state);
    return { state, commentId: found.commentId, body: found.body, warm: false, checksKnown: false, checkRuns: new Map(), markers: read.markers };
  }

  private async workflowOf(gh: RepoContext, state: RunState): Promise<Workflow> {
    const set = await loadManifests(gh, state.manifestCommit);
    const found = byName(set, state.workflow);
    if (!found) throw new Error(`run ${state.runId}: workflow \`${state.workflow}\` is not in ${state.manifestCommit.slice(0, 7)}'s .agents/workflows any more`);
    if (state.manifestHash && found.hash !== state.manifestHash) {
      throw new Error(`run ${state.runId}: the manifest of \`${state.workflow}\` at ${state.manifestCommit.slice(0, 7)} reads differently than when the run started (was baton upgraded mid-run?)`);
    }
    return found.workflow;
  }

  private async process(gh: RepoContext, memory: RunMemory, source: EventSource, known?: Workflow): Promise<RunState> {
    const runId = memory.state.runId;
    try {
      const workflow = known ?? (await this.workflowOf(gh, memory.state));
      const host = new GitHubHost(gh, memory, this.memories.commits, this.now, this.memories.outputs);
      const events = await source(memory, workflow);
      if (events.length) await drive(host, workflow, memory.state, events);
      // A worker that never reports (its webhook lost, its job stuck) must not hang the run:
      // on any later event, attempts past their deadline are looked up on Actions, and what
      // still runs is then timed out by the time that passed.
      const now = this.now();
      if (!memory.warm || overdue(memory.state, now)) await this.reconcile(gh, host, memory, workflow);
      if (overdue(memory.state, now)) await drive(host, workflow, memory.state, [{ type: 'time.passed', key: `time:${now}`, at: now }]);
      await host.flush(workflow);
      memory.warm = true;
      if (memory.state.status !== 'idle') this.memories.set(gh.owner, gh.repo, memory);
      return memory.state;
    } catch (err) {
      // What is in memory may be ahead of GitHub now: start over from the record next time.
      if (runId) this.memories.forget(gh.owner, gh.repo, runId);
      throw err;
    }
  }

  /**
   * After a restart: worker runs that finished while nobody listened are collected now
   * (their webhook may never come again), and running jobs without an Actions run are
   * looked up by run-name.
   */
  private async reconcile(gh: RepoContext, host: GitHubHost, memory: RunMemory, workflow: Workflow): Promise<void> {
    if (isTerminal(memory.state.status) || memory.state.status === 'idle') return;
    for (const step of memory.state.steps) {
      for (const job of step.jobs) {
        if (job.status !== 'running') continue;
        const ref = { runId: memory.state.runId, step: step.id, slot: job.slot, attempt: job.attempt };
        let run: (WorkerRunFacts & { status: string | null; conclusion: string | null }) | undefined;
        if (job.workflowRunId !== null) {
          const id = job.workflowRunId;
          try {
            const res = await orGone(id, () => gh.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { owner: gh.owner, repo: gh.repo, run_id: id }));
            run = { ...factsOfRun(res.data), status: res.data.status, conclusion: res.data.conclusion };
          } catch (err) {
            if (!(err instanceof WorkerRunGone)) throw err;
            // Deleted or expired: the attempt failed (the retry policy decides what follows).
            const events = workerRunGone(memory.state, ref, id, this.now());
            if (events.length) await drive(host, workflow, memory.state, events);
            continue;
          }
        } else {
          run = await findWorkerRun(gh, `baton ${ref.runId} ${ref.step}${ref.slot === '0' ? '' : `[${ref.slot}]`} #${ref.attempt}`);
          if (run) await drive(host, workflow, memory.state, [{ type: 'worker.dispatched', key: `worker-run:${run.id}/found`, at: this.now(), step: step.id, slot: job.slot, attempt: job.attempt, workflowRunId: run.id }]);
        }
        if (run?.status !== 'completed') continue;
        const events = await collectWorkerResult(gh, this.memories.commits, memory.state, ref, run, this.now(), workflow);
        if (events.length) await drive(host, workflow, memory.state, events);
      }
    }
  }
}

/** A running attempt whose deadline has passed. */
function overdue(state: RunState, now: number): boolean {
  if (state.status !== 'running') return false;
  return state.steps.some((s) => s.jobs.some((j) => j.status === 'running' && j.deadline !== null && j.deadline <= now));
}

/** Comments that look like a record but are not trusted: ignored, and said so once in the thread. */
async function reportIgnored(gh: RepoContext, number: number, read: ThreadRead, log: Log): Promise<void> {
  for (const bad of read.ignored) {
    log.warn(`ignored a baton record in comment ${bad.commentId} on #${number}: ${bad.problem}`);
    const text = `⚠️ Comment ${bad.commentId} looks like a baton status comment, but ${bad.problem}: baton ignored it. A run's state is read only from baton's own status comment, unedited.`;
    await postOnce(gh, number, `baton:reply ignored-record/${bad.commentId}`, text, read.markers);
  }
}
