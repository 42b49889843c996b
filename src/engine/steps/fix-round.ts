// Fix rounds, shared by the review and checks gates: one dispatch of the `fix` step's
// agent (never fanned out) with the feedback, bounded by `max-rounds`.
import type { ChecksStep, ReviewStep } from '../../manifest/types.ts';
import type { Draft } from '../draft.ts';
import { openJob } from '../jobs.ts';
import { failStep } from '../lifecycle.ts';
import { newJob } from '../state.ts';
import type { Feedback } from '../types.ts';

/** Starts the next fix round, or fails the gate with `failure` when none is allowed. */
export function fixOrFail(d: Draft, gate: ReviewStep | ChecksStep, feedback: Feedback, failure: string): void {
  const st = d.step(gate.id);
  const g = st.gate!;
  if (!gate.fix) return failStep(d, gate.id, failure);
  if (g.round >= gate.maxRounds) {
    const rounds = gate.maxRounds === 1 ? '1 fix round' : `${gate.maxRounds} fix rounds`;
    return failStep(d, gate.id, `${failure} (after ${rounds})`);
  }
  const round = g.round + 1;
  const slot = `fix-${round}`;
  d.setStep(gate.id, { gate: { ...g, phase: 'fixing', round, pendingFeedback: null, deadline: null } });
  d.visible = true;
  const job = Object.assign(newJob(slot, 'fix', null, null, st.attempts[slot] ?? 0), { feedback });
  openJob(d, gate.id, job);
}
