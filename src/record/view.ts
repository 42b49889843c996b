// A run as people and agents ask about it (`baton status`, MCP `baton_get_run`): the same
// few facts whether the state came from a local record or from a status comment.
import type { Json, RunState } from '../engine/index.ts';
import { stepById, type Workflow } from '../manifest/types.ts';
import { isOutputRef } from './externalize.ts';
import { stepCost } from './cost.ts';

/** What a view shows for an output kept outside the status comment (not fetched here). */
export const OUTPUT_KEPT_TEXT = '(output kept in the check run)';

/** What a run waits for from a person: an `ask` step's open questions or an `approve` step. */
export interface Waiting {
  step: string;
  kind: 'ask' | 'approve';
  /** All the step's questions (answered ones too: answers are given by position). */
  questions: string[];
  /** Positions still unanswered. */
  open: number[];
  message: string | null;
}

export interface StepView {
  id: string;
  status: string;
  reason: string | null;
  attempt: number;
  startedAt: number | null;
  finishedAt: number | null;
  outputs: Json;
  /** What its worker attempts cost in dollars; null when none reported one (or it ran none). */
  costUsd: number | null;
  /** The cost as the record shows it: "$0.12", "≈ $0.12" (estimated), "—" (not reported), "" (no worker). */
  cost: string;
}

export interface RunView {
  runId: string;
  workflow: string;
  status: RunState['status'];
  reason: string | null;
  branch: string;
  head: string;
  startedAt: number | null;
  finishedAt: number | null;
  budget: RunState['budget'];
  steps: StepView[];
  waiting: Waiting[];
  /** Set when the state was read without the key that signed it (a display-only reader), saying so. */
  unverified?: string;
}

/**
 * What the run waits for. Without the workflow (a state read from GitHub carries no
 * manifest) approve steps cannot be told from other waiting steps, so only questions show.
 */
export function waitingFor(state: RunState, workflow?: Workflow): Waiting[] {
  if (state.status !== 'running') return [];
  const out: Waiting[] = [];
  for (const st of state.steps) {
    if (st.status !== 'running') continue;
    if (st.ask) {
      const open = st.ask.answers.flatMap((a, i) => (a === null ? [i] : []));
      if (open.length) out.push({ step: st.id, kind: 'ask', questions: st.ask.questions, open, message: null });
    } else if ((workflow && stepById(workflow, st.id)?.kind) === 'approve') {
      out.push({ step: st.id, kind: 'approve', questions: [], open: [], message: st.note });
    }
  }
  return out;
}

export function viewOfState(state: RunState, workflow?: Workflow): RunView {
  return {
    runId: state.runId,
    workflow: state.workflow,
    status: state.status,
    reason: state.reason,
    branch: state.runBranch,
    head: state.head,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt,
    budget: state.budget,
    steps: state.steps.map((s) => ({
      id: s.id,
      status: s.status,
      reason: s.reason,
      attempt: Math.max(0, ...s.jobs.map((j) => j.attempt)),
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      outputs: shown(s.outputs),
      costUsd: s.costUsd !== undefined && s.costUsd > 0 ? s.costUsd : null,
      cost: stepCost(s),
    })),
    waiting: waitingFor(state, workflow),
  };
}

function shown(outputs: Json): Json {
  if (isOutputRef(outputs)) return OUTPUT_KEPT_TEXT;
  return Array.isArray(outputs) ? outputs.map((o) => (isOutputRef(o) ? OUTPUT_KEPT_TEXT : o)) : outputs;
}
