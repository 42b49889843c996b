// Drives the engine like a host would in tests: sends events with fresh keys and a
// controllable clock, remembers every command, and answers commands on request.
import { decide } from '../../src/engine/decide.ts';
import type { Command, DispatchWorker, MergeStepBranch, ReadBack } from '../../src/engine/commands.ts';
import type { RunEvent } from '../../src/engine/events.ts';
import { emptyState } from '../../src/engine/state.ts';
import type { Json, RunState, StepState, Thread } from '../../src/engine/types.ts';
import type { Role, Workflow } from '../../src/manifest/types.ts';

export const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

// Distributive Omit keeps the union's members apart.
type Without<E, K extends PropertyKey> = E extends unknown ? Omit<E, K> : never;
export type EventInput = Without<RunEvent, 'key' | 'at'> & { key?: string; at?: number };

export class Run {
  state: RunState = emptyState();
  now = T0;
  events: RunEvent[] = [];
  all: Command[] = [];
  last: Command[] = [];
  private seq = 0;
  private shas = 0;

  constructor(readonly workflow: Workflow) {}

  /**
   * How the host double answers the engine's read-backs of deliverables: `found` at once (a host
   * whose writes all landed), or `manual` (the test answers with `read`).
   */
  readBacks: 'found' | 'manual' = 'found';

  send(input: EventInput): Command[] {
    const event = { key: `k${++this.seq}`, at: this.now, ...input } as RunEvent;
    this.events.push(event);
    const out = decide(this.state, event, this.workflow);
    this.state = out.state;
    this.all.push(...out.commands);
    const commands = [...out.commands];
    if (this.readBacks === 'found') {
      for (const c of out.commands) if (c.type === 'read-back') commands.push(...this.read(c, []));
    }
    this.last = commands;
    return commands;
  }

  /** Answers a read-back: `missing` names what the host did not find (empty: all there). */
  read(c: ReadBack, missing: string[]): Command[] {
    return this.send({ type: 'deliverable.read', step: c.step, opening: c.opening, seq: c.seq, missing });
  }

  /** The latest read-back the engine asked for. */
  readBack(step?: string): ReadBack | undefined {
    return this.all.filter((c): c is ReadBack => c.type === 'read-back' && (step === undefined || c.step === step)).at(-1);
  }

  start(o: { inputs?: Record<string, Json>; actor?: string; permission?: Role | 'none'; issue?: Json; thread?: Thread; fork?: true; dayCostLeftUsd?: number } = {}): Command[] {
    return this.send({
      type: 'run.requested',
      runId: 'r1',
      workflow: this.workflow.name,
      manifestHash: 'hash-1',
      manifestCommit: 'c0',
      inputs: o.inputs ?? {},
      thread: o.thread ?? { kind: 'issue', number: 42 },
      // `issue: null`: a run with no issue (one started on a pull request).
      issue: 'issue' in o ? (o.issue ?? null) : { number: 42, title: 'Crash on save', body: 'It crashes.' },
      repo: { owner: 'o', name: 'r' },
      baseBranch: 'main',
      baseSha: 'base0',
      actor: o.actor ?? 'alice',
      permission: o.permission ?? 'admin',
      ...(o.fork && { fork: true as const }),
      ...(o.dayCostLeftUsd !== undefined && { dayCostLeftUsd: o.dayCostLeftUsd }),
    });
  }

  /** Moves the clock and tells the engine. */
  pass(minutes: number): Command[] {
    this.now += minutes * 60_000;
    return this.send({ type: 'time.passed' });
  }

  dispatches(commands: Command[] = this.all): DispatchWorker[] {
    return commands.filter((c): c is DispatchWorker => c.type === 'dispatch-worker');
  }

  /** The latest dispatch of a step (and slot). */
  dispatch(step: string, slot?: string): DispatchWorker {
    const found = this.dispatches().filter((c) => c.step === step && (slot === undefined || c.slot === slot));
    const d = found[found.length - 1];
    if (!d) throw new Error(`no dispatch of ${step}${slot ? '/' + slot : ''}`);
    return d;
  }

  /** A worker finished; writing jobs report a commit (the engine then asks for a merge). */
  finish(step: string, outputs: Json = null, o: { slot?: string; commit?: string | null; costUsd?: number } = {}): Command[] {
    const d = this.dispatch(step, o.slot);
    const commit = o.commit === undefined ? (d.writes ? `${d.step}-${d.slot}-${d.attempt}-commit` : null) : o.commit;
    return this.send({
      type: 'worker.finished',
      step,
      slot: d.slot,
      attempt: d.attempt,
      outputs,
      commit,
      ...(o.costUsd === undefined ? {} : { usage: { costUsd: o.costUsd } }),
    });
  }

  fail(step: string, o: { slot?: string; reason?: 'crashed' | 'timed-out' | 'cancelled' | 'dispatch-failed' | 'refused'; error?: string; checkpoint?: string } = {}): Command[] {
    const d = this.dispatch(step, o.slot);
    return this.send({
      type: 'worker.failed',
      step,
      slot: d.slot,
      attempt: d.attempt,
      reason: o.reason ?? 'crashed',
      error: o.error ?? 'boom',
      checkpoint: o.checkpoint ?? null,
    });
  }

  /** Completes the latest merge the engine asked for. */
  merge(o: { conflict?: string[]; keptOn?: string; refused?: string } = {}): Command[] {
    const m = this.all.filter((c): c is MergeStepBranch => c.type === 'merge-step-branch').at(-1);
    if (!m) throw new Error('no merge was asked for');
    if (o.conflict) return this.send({ type: 'merge.conflicted', step: m.step, slot: m.slot, attempt: m.attempt, files: o.conflict, ...(o.keptOn && { branch: o.keptOn }) });
    if (o.refused) return this.send({ type: 'merge.refused', step: m.step, slot: m.slot, attempt: m.attempt, error: o.refused });
    return this.send({ type: 'merge.completed', step: m.step, slot: m.slot, attempt: m.attempt, head: `head${++this.shas}` });
  }

  /** Finishes a step's job and, when the engine asks for it, its merge. */
  complete(step: string, outputs: Json = null, o: { slot?: string; costUsd?: number } = {}): Command[] {
    const out = this.finish(step, outputs, o);
    if (out.some((c) => c.type === 'merge-step-branch' && c.step === step)) return this.merge();
    return out;
  }

  step(id: string): StepState {
    const st = this.state.steps.find((s) => s.id === id);
    if (!st) throw new Error(`no step ${id}`);
    return st;
  }

  status(step: string): string {
    return this.step(step).status;
  }

  of<T extends Command['type']>(type: T, commands: Command[] = this.last): Extract<Command, { type: T }>[] {
    return commands.filter((c): c is Extract<Command, { type: T }> => c.type === type);
  }
}
