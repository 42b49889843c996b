// `label` steps: add labels (often an agent's choice) to the run's issue. Only names the step's
// `labels` list holds go to the host (the rest are dropped and said so: an agent that read a
// stranger's issue must not pick `security` or a label that starts other automation); the host
// adds only the labels the repository has, refuses a workflow's trigger label and any label on
// a fork run, and reports the other names; a refused API call is retried within `retries`,
// then fails the step with GitHub's answer. A fork run never labels.
import type { LabelStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import { deliver } from '../deliverable.ts';
import type { Draft } from '../draft.ts';
import type { LabelsApplied, LabelsFailed } from '../events.ts';
import { labelList, labelRequest, MAX_LABELS, type LabelRequest } from '../label-names.ts';
import { failStep, succeedStep } from '../lifecycle.ts';
import { render, renderText } from '../scope.ts';
import type { Json } from '../types.ts';
import type { StepKindHandler } from './kind.ts';

/** The names the step asks for: its list (each item rendered), or what its one expression yields. */
function requested(d: Draft, step: LabelStep): LabelRequest {
  let value: Json;
  if (Array.isArray(step.add)) {
    const names: string[] = [];
    for (const item of step.add) {
      const r = renderText(d, item);
      if (!r.ok) return { ok: false, error: r.error };
      names.push(r.value);
    }
    value = names;
  } else {
    const r = render(d, step.add);
    if (!r.ok) return { ok: false, error: r.error };
    value = r.value;
  }
  return labelRequest(value);
}

/** The requested names the step's `labels` list holds (compared without case), and the others. */
export function sift(step: LabelStep, names: readonly string[]): { listed: string[]; dropped: string[] } {
  const allowed = new Set(step.labels.map((l) => l.trim().toLowerCase()));
  const listed: string[] = [];
  const dropped: string[] = [];
  for (const name of names) (allowed.has(name.toLowerCase()) ? listed : dropped).push(name);
  return { listed, dropped };
}

const droppedNote = (dropped: readonly string[]): string[] => (dropped.length ? [`not in the step's \`labels\`, so not added: ${labelList(dropped)}`] : []);

/** Why a fork run adds no label (manifest/fork-review.ts refuses the step before; this holds if one got past). */
export const FORK_RUN_LABELS = "a run on a fork's pull request never adds labels: a label the App adds can start other automation with this repository's secrets";

function leftOutNote(leftOut: number): string {
  return leftOut ? `; ${leftOut} more left out (GitHub allows at most ${MAX_LABELS} labels on an issue)` : '';
}

function start(d: Draft, step: LabelStep): void {
  if (d.state.fork) return failStep(d, step.id, FORK_RUN_LABELS);
  const req = requested(d, step);
  if (!req.ok) return failStep(d, step.id, `\`add\`: ${req.error}`);
  const { listed, dropped } = sift(step, req.names);
  if (listed.length === 0) return succeedStep(d, step.id, { applied: [], unknown: [], dropped }, ['no labels to add', ...droppedNote(dropped)].join('; '));
  d.setStep(step.id, { note: [`adding ${labelList(listed)}${leftOutNote(req.leftOut)}`, ...droppedNote(dropped)].join('; ') });
  openStepCheck(d, step.id, d.step(step.id).opening, `adding ${listed.length} label(s)`, labelList(listed, MAX_LABELS));
  emit(d, step, listed);
}

function emit(d: Draft, step: LabelStep, labels: string[]): void {
  const st = d.step(step.id);
  d.emit({
    type: 'apply-labels',
    runId: d.state.runId,
    key: `${d.state.runId}/${step.id}/labels/${st.opening}/${st.failures}`,
    step: step.id,
    thread: d.state.thread,
    labels,
    ...(d.state.fork && { fork: true as const }),
  });
}

export function labelsApplied(d: Draft, step: LabelStep, ev: LabelsApplied): void {
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  const req = requested(d, step);
  const leftOut = req.ok ? req.leftOut : 0;
  const { listed, dropped: unlisted } = sift(step, req.ok ? req.names : []);
  // Names the host refused (a workflow's trigger label) are dropped too: the outputs say so.
  const refused = ev.refused ?? [];
  const dropped = [...unlisted, ...refused];
  // A host that added nothing says why (a local run has no issue); the note says what was asked for.
  const asked = ev.note && req.ok ? ` (asked for ${labelList(listed)})` : '';
  const parts = [
    ev.note ? ev.note + asked : ev.applied.length ? `added ${labelList(ev.applied)}` : 'added none',
    ...(ev.unknown.length ? [`not labels of this repository (not created): ${labelList(ev.unknown)}`] : []),
    ...droppedNote(unlisted),
    ...(refused.length ? [`labels that start a workflow, so not added: ${labelList(refused)}`] : []),
  ];
  const note = parts.join('; ') + leftOutNote(leftOut);
  d.setStep(step.id, { note });
  const summary = [
    ev.note ? ev.note + asked : '',
    ev.applied.length ? `Added: ${labelList(ev.applied, MAX_LABELS)}` : '',
    ev.unknown.length ? `Not labels of this repository, so not added (baton never creates labels): ${labelList(ev.unknown, MAX_LABELS)}` : '',
    unlisted.length ? `Not in the step's \`labels\`, so not added: ${labelList(unlisted, MAX_LABELS)}` : '',
    refused.length ? `Labels that start a baton workflow, so not added: ${labelList(refused, MAX_LABELS)}` : '',
    leftOut ? `${leftOut} more name(s) left out: GitHub allows at most ${MAX_LABELS} labels on an issue.` : '',
  ];
  const outputs = { applied: ev.applied, unknown: ev.unknown, dropped };
  // Labels the host says it added are done once they are read back on the thread (deliverable.ts).
  if (ev.applied.length && d.state.thread) return deliver(d, step.id, { kind: 'labels', thread: d.state.thread, labels: ev.applied }, outputs, note, summary.filter(Boolean).join('\n\n'));
  succeedStep(d, step.id, outputs, note, summary.filter(Boolean).join('\n\n'));
}

export function labelsFailed(d: Draft, step: LabelStep, ev: LabelsFailed): void {
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  const failures = d.step(step.id).failures + 1;
  d.setStep(step.id, { failures });
  if (failures <= step.retries) {
    const req = requested(d, step);
    const { listed } = sift(step, req.ok ? req.names : []);
    if (listed.length) return emit(d, step, listed);
  }
  failStep(d, step.id, `could not add the labels: ${ev.error}`);
}

const noJobs = (): void => {
  throw new Error('baton engine: a label step has no worker jobs');
};

export const labelStep: StepKindHandler<LabelStep> = { start, jobSucceeded: noJobs, jobFailed: noJobs };
