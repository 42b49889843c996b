// The working copy one `decide` call edits. The input state is never mutated: the
// draft starts as a shallow copy and replaces (never edits) every nested object it
// changes, so unchanged steps are shared with the previous state.
import type { Step, Workflow } from '../manifest/types.ts';
import type { Command } from './commands.ts';
import type { RunEvent } from './events.ts';
import { copyJob, copyRun, copyStep } from './state.ts';
import type { JobState, RunState, StepState } from './types.ts';

/** Lookups over a workflow, computed once per workflow object. */
export interface WorkflowIndex {
  byId: Map<string, Step>;
  /** Position of each step in the workflow, which is also its position in `state.steps`. */
  position: Map<string, number>;
  /** Steps that list a step in `needs`. */
  dependents: Map<string, string[]>;
  /** For each step (by position), the positions of the steps it needs. */
  needs: number[][];
}

const indexes = new WeakMap<Workflow, WorkflowIndex>();

export function indexOf(workflow: Workflow): WorkflowIndex {
  let index = indexes.get(workflow);
  if (!index) {
    const byId = new Map<string, Step>();
    const position = new Map<string, number>();
    const dependents = new Map<string, string[]>();
    for (const [i, step] of workflow.steps.entries()) {
      byId.set(step.id, step);
      position.set(step.id, i);
      for (const need of step.needs) dependents.set(need, [...(dependents.get(need) ?? []), step.id]);
    }
    const needs = workflow.steps.map((s) => s.needs.map((id) => position.get(id) ?? -1));
    index = { byId, position, dependents, needs };
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
  /**
   * Step status changes made by this event so far. While it is 0 no waiting step can
   * have become ready (the previous event already started every ready one), so the
   * scheduler can skip checking their needs.
   */
  statusChanges = 0;

  constructor(
    previous: RunState,
    readonly workflow: Workflow,
    readonly event: RunEvent,
  ) {
    this.state = copyRun(previous);
    this.state.steps = previous.steps.slice();
    this.index = indexOf(workflow);
    this.now = Math.max(previous.clock, event.at);
  }

  stepDef(id: string): Step | undefined {
    return this.index.byId.get(id);
  }

  findStep(id: string): StepState | undefined {
    const i = this.index.position.get(id);
    return i === undefined ? undefined : this.state.steps[i];
  }

  step(id: string): StepState {
    const s = this.findStep(id);
    if (!s) throw new Error(`baton engine: no state for step ${id}`);
    return s;
  }

  setStep(id: string, patch: Partial<StepState>): StepState {
    const old = this.step(id);
    const next = Object.assign(copyStep(old), patch);
    if (patch.status !== undefined && patch.status !== old.status) {
      this.visible = true;
      this.statusChanges++;
    }
    this.state.steps[this.index.position.get(id)!] = next;
    return next;
  }

  job(stepId: string, slot: string): JobState | undefined {
    return this.findStep(stepId)?.jobs.find((j) => j.slot === slot);
  }

  setJob(stepId: string, slot: string, patch: Partial<JobState>): JobState {
    const step = this.step(stepId);
    let updated: JobState | undefined;
    const jobs = step.jobs.map((j) => {
      if (j.slot !== slot) return j;
      updated = Object.assign(copyJob(j), patch);
      if (patch.status !== undefined && patch.status !== j.status) this.visible = true;
      return updated;
    });
    if (!updated) throw new Error(`baton engine: no job ${stepId}/${slot}`);
    const next = copyStep(step);
    next.jobs = jobs;
    this.state.steps[this.index.position.get(stepId)!] = next;
    return updated;
  }

  emit(command: Command): void {
    this.commands.push(command);
  }
}
