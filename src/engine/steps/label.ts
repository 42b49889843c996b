// `label` steps: add labels (often an agent's choice) to the run's issue. The host adds only
// the labels the repository has and reports the other names; a refused API call is retried
// within `retries`, then fails the step with GitHub's answer.
import type { LabelStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
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

function leftOutNote(leftOut: number): string {
  return leftOut ? `; ${leftOut} more left out (GitHub allows at most ${MAX_LABELS} labels on an issue)` : '';
}

function start(d: Draft, step: LabelStep): void {
  const req = requested(d, step);
  if (!req.ok) return failStep(d, step.id, `\`add\`: ${req.error}`);
  if (req.names.length === 0) return succeedStep(d, step.id, { applied: [], unknown: [] }, 'no labels to add');
  d.setStep(step.id, { note: `adding ${labelList(req.names)}${leftOutNote(req.leftOut)}` });
  openStepCheck(d, step.id, d.step(step.id).opening, `adding ${req.names.length} label(s)`, labelList(req.names, MAX_LABELS));
  emit(d, step, req.names);
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
  });
}

export function labelsApplied(d: Draft, step: LabelStep, ev: LabelsApplied): void {
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  const req = requested(d, step);
  const leftOut = req.ok ? req.leftOut : 0;
  // A host that added nothing says why (a local run has no issue); the note says what was asked for.
  const asked = ev.note && req.ok ? ` (asked for ${labelList(req.names)})` : '';
  const parts = [
    ev.note ? ev.note + asked : ev.applied.length ? `added ${labelList(ev.applied)}` : 'added none',
    ...(ev.unknown.length ? [`not labels of this repository (not created): ${labelList(ev.unknown)}`] : []),
  ];
  const note = parts.join('; ') + leftOutNote(leftOut);
  d.setStep(step.id, { note });
  const summary = [
    ev.note ? ev.note + asked : '',
    ev.applied.length ? `Added: ${labelList(ev.applied, MAX_LABELS)}` : '',
    ev.unknown.length ? `Not labels of this repository, so not added (baton never creates labels): ${labelList(ev.unknown, MAX_LABELS)}` : '',
    leftOut ? `${leftOut} more name(s) left out: GitHub allows at most ${MAX_LABELS} labels on an issue.` : '',
  ];
  succeedStep(d, step.id, { applied: ev.applied, unknown: ev.unknown }, note, summary.filter(Boolean).join('\n\n'));
}

export function labelsFailed(d: Draft, step: LabelStep, ev: LabelsFailed): void {
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  const failures = d.step(step.id).failures + 1;
  d.setStep(step.id, { failures });
  if (failures <= step.retries) {
    const req = requested(d, step);
    if (req.ok && req.names.length) return emit(d, step, req.names);
  }
  failStep(d, step.id, `could not add the labels: ${ev.error}`);
}

const noJobs = (): void => {
  throw new Error('baton engine: a label step has no worker jobs');
};

export const labelStep: StepKindHandler<LabelStep> = { start, jobSucceeded: noJobs, jobFailed: noJobs };
