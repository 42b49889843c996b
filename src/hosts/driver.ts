// The run loop every host shares (GitHub App, Actions-only, local): apply an event, hand
// the new state to the host's save() before acting on it, then execute the commands and
// feed the events they produce back in, until nothing more happens. What save() means is the
// host's: the local host writes the state to disk first (intent first: a crash between the
// save and the effect is repaired by reconciliation, never doubled); the GitHub hosts only
// keep it in memory and write the status comment once at the end (one edit per event under
// GitHub's write pacing), so a crash between an effect and that write leaves the record
// behind the effect (issue: leases and sweeps, docs/operations.md).
import { decide, type Command, type RunEvent, type RunState } from '../engine/index.ts';
import type { Workflow } from '../manifest/types.ts';

export interface HostPort {
  /**
   * Persist the state. `render` is true when something a person sees changed (the
   * engine's render-record command); hosts that keep a rendered record re-render then.
   */
  save(state: RunState, workflow: Workflow, opts: { render: boolean }): Promise<void>;
  /** Carry out one command; return the events it produced (each with its own key). */
  execute(command: Command, state: RunState, workflow: Workflow): Promise<RunEvent[]>;
}

export interface DriveResult {
  state: RunState;
  /** Every event applied, in order (the host may log them: local runs keep events.jsonl). */
  applied: RunEvent[];
  commands: Command[];
}

/** Bound on follow-up events per call: a host bug must not spin forever. */
const MAX_EVENTS = 10_000;

export async function drive(host: HostPort, workflow: Workflow, state: RunState, first: RunEvent | RunEvent[]): Promise<DriveResult> {
  const queue = Array.isArray(first) ? [...first] : [first];
  const applied: RunEvent[] = [];
  const commands: Command[] = [];
  let current = state;
  while (queue.length) {
    if (applied.length >= MAX_EVENTS) throw new Error(`run ${current.runId}: more than ${MAX_EVENTS} follow-up events in one go; the host keeps answering itself`);
    const event = queue.shift()!;
    const { state: next, commands: out } = decide(current, event, workflow);
    if (next === current) continue; // a duplicate: nothing to save, nothing to do
    applied.push(event);
    current = next;
    await host.save(current, workflow, { render: out.some((c) => c.type === 'render-record') });
    for (const command of out) {
      if (command.type === 'render-record') continue;
      commands.push(command);
      queue.push(...(await host.execute(command, current, workflow)));
    }
  }
  return { state: current, applied, commands };
}
