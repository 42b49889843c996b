// The working copy one `decide` call edits. The input state is never mutated: the
// draft starts as a shallow copy and replaces (never edits) every nested object it
// changes, so unchanged steps are shared with the previous state.
import type { Step, Workflow } from '../manifest/types.ts';
import type { Command } from './commands.ts';
import type { RunEvent } from './events.ts';
import type { JobState, RunState, StepState } from './types.ts';

/** Lookups over a workflow, computed once per workflow object. */
export interface WorkflowIndex {
  byId: Map<string, Step>;
  /** Steps that list a step in `needs`. */
  dependents: Map<string, string[]>;
}

const indexes = new WeakMap<Workflow, WorkflowIndex>();

export function indexOf(workflow: Workflow): WorkflowIndex {
  let index = indexes.get(workflow);
  if (!index) {
    const byId = new Map<string, Step>();
    const dependents = new Map<string, string[]>();
    for (const step of workflow.steps) {
      byId.set(step.id, step);
      for (const need of step.needs) dependents.set(need, [...(dependents.get(need) ?? []), step.id]);
    }
    index = { byId, dependents };
    indexes.set(workflow, index);
  }
  return index;
}

export class Draft {
  readonly state: RunState;
  readonly commands: Command[] = [];
  readonly index: WorkflowIndex;
  /** Time of this event; never earlier than any event seen before. */
  readonly now: number;
  /** Something a person would see in the status comment changed. */
  visible = false;

  constructor(
    previous: RunState,
    readonly workflow: Workflow,
    readonly event: RunEvent,
  ) {
    this.state = { ...previous, steps: { ...previous.steps } };
    this.index = indexOf(workflow);
    this.now = Math.max(previous.clock, event.at);
  }

  stepDef(id: string): Step | undefined {
    return this.index.byId.get(id);
  }

  step(id: string): StepState {
    const s = this.state.steps[id];
    if (!s) throw new Error(`baton engine: no state for step ${id}`);
    return s;
  }

  setStep(id: string, patch: Partial<StepState>): StepState {
    const old = this.step(id);
    const next = { ...old, ...patch };
    if (patch.status !== undefined && patch.status !== old.status) this.visible = true;
    this.state.steps[id] = next;
    return next;
  }

  job(stepId: string, slot: string): JobState | undefined {
    return this.state.steps[stepId]?.jobs.find((j) => j.slot === slot);
  }

  setJob(stepId: string, slot: string, patch: Partial<JobState>): JobState {
    const step = this.step(stepId);
    let updated: JobState | undefined;
    const jobs = step.jobs.map((j) => {
      if (j.slot !== slot) return j;
      updated = { ...j, ...patch };
      if (patch.status !== undefined && patch.status !== j.status) this.visible = true;
      return updated;
    });
    if (!updated) throw new Error(`baton engine: no job ${stepId}/${slot}`);
    this.state.steps[stepId] = { ...step, jobs };
    return updated;
  }

  emit(command: Command): void {
    this.commands.push(command);
  }
}
