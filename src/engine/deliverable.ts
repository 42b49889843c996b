// Green only with the deliverable: a step whose work leaves something on GitHub (or on disk,
// locally) — a writing step's commit, the pull request, a posted review, the labels — is
// recorded done only after the host has read that thing back. The step's own code says what
// the deliverable is (`deliver`); the host reads it back (the `read-back` command) and answers
// with `deliverable.read`, naming what it did not find; only a read-back that found everything
// succeeds the step, anything else fails it with a message naming what is missing. One door for
// every kind: no step of these kinds reaches `succeeded` any other way.
import type { Draft } from './draft.ts';
import type { DeliverableRead } from './events.ts';
import { aggregateCheck } from './checks-runs.ts';
import { failStep, succeedStep } from './lifecycle.ts';
import type { Json, Thread } from './types.ts';

/** What a step leaves behind, as the host can look it up. */
export type Deliverable =
  /** A writing step: `head` (the run's head after its merges) exists on the run branch and differs from `from` (where the step started). */
  | { kind: 'commit'; branch: string; head: string; from: string }
  /** A pull-request step: pull request `number` is open with `head` as its head commit (`branch`: its head branch). */
  | { kind: 'pull-request'; number: number; branch: string; head: string }
  /** A review step: baton's review marked with `marker` (the post-review command's key) is on pull request `prNumber`. */
  | { kind: 'review'; prNumber: number; marker: string; reviewId: number | null }
  /** A label step: every one of `labels` is on the thread. */
  | { kind: 'labels'; thread: Thread; labels: string[] }
  /** An ask step: baton's comment with the questions, marked with `marker` (the post-questions command's key), is on the thread. */
  | { kind: 'questions'; thread: Thread; marker: string };

/** The step's result, held while its deliverable is read back. */
export interface Delivering {
  deliverable: Deliverable;
  outputs: Json;
  title: string;
  summary: string;
  /** Numbers the read-backs of one step, so that a late answer to an earlier one is ignored. */
  seq: number;
}

/** In a person's words: what the step was to leave behind. */
export function describeDeliverable(x: Deliverable): string {
  switch (x.kind) {
    case 'commit':
      return `the step's commit ${x.head.slice(0, 7)} on \`${x.branch}\``;
    case 'pull-request':
      return `pull request #${x.number} at the run's head ${x.head.slice(0, 7)}`;
    case 'review':
      return `baton's review on #${x.prNumber}`;
    case 'labels':
      return `the labels ${x.labels.map((l) => `\`${l}\``).join(', ')} on #${x.thread.number}`;
    case 'questions':
      return `the question comment on #${x.thread.number}`;
  }
}

/**
 * The step's work is done: read its deliverable back before recording it. The step stays
 * running meanwhile; the answer succeeds it (with these outputs) or fails it.
 */
export function deliver(d: Draft, stepId: string, deliverable: Deliverable, outputs: Json, title: string, summary = ''): void {
  const st = d.step(stepId);
  const seq = (st.delivering?.seq ?? 0) + 1;
  d.setStep(stepId, { delivering: { deliverable, outputs, title, summary, seq } });
  d.emit({
    type: 'read-back',
    runId: d.state.runId,
    key: `${d.state.runId}/${stepId}/read-back/${st.opening}/${seq}`,
    step: stepId,
    opening: st.opening,
    seq,
    deliverable,
  });
}

export function onDeliverableRead(d: Draft, ev: DeliverableRead): void {
  if (d.state.status !== 'running') return;
  const st = d.findStep(ev.step);
  const held = st?.delivering;
  if (!st || st.status !== 'running' || !held || st.opening !== ev.opening || held.seq !== ev.seq) return;
  d.setStep(ev.step, { delivering: null });
  if (ev.missing.length > 0) {
    return failStep(d, ev.step, `reported done, but missing ${describeDeliverable(held.deliverable)}: ${ev.missing.join('; ')}`);
  }
  d.setStep(ev.step, { delivered: ev.found ?? describeDeliverable(held.deliverable) });
  succeedStep(d, ev.step, held.outputs, held.title, held.summary);
  // Branch protection reads the aggregate check on the pull request's head, once it exists.
  if (held.deliverable.kind === 'pull-request' && d.state.status === 'running') aggregateCheck(d);
}
