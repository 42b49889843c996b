// Check runs baton creates: one per step attempt (`baton / <workflow> / <step>`) and
// one aggregate (`baton / <workflow>`) that branch protection can require. Hosts upsert
// them by external id *and* head sha: a check belongs to a commit, so a new head gets
// a new check run.
//
// A step whose worker does the work (agent and run steps, fanned out or not) writes its
// check run once, completed, when the attempt ends, with the time it began: while it works,
// the worker's own Actions job shows as a running check and the aggregate stays in
// progress, so an in-progress check of its own would cost a paced write and tell nothing
// more. Steps that wait on a person or on CI (approve, ask, checks, review) open theirs at
// once: nothing else shows that they wait.
import type { CheckConclusion, CheckStatus, UpsertCheckRun } from './commands.ts';
import type { Draft } from './draft.ts';
import { aggregateCheckExternalId, aggregateCheckName, stepCheckExternalId, stepCheckName } from './naming.ts';

/**
 * A bound on a check run's summary in characters. GitHub counts bytes of UTF-8 (the engine
 * knows no host's unit): the GitHub host cuts to its byte limit (hosts/github/limits.ts).
 */
const SUMMARY_LIMIT = 65_535;

function clip(text: string): string {
  return text.length <= SUMMARY_LIMIT ? text : text.slice(0, SUMMARY_LIMIT - 20) + '\n… (truncated)';
}

/**
 * Makes `attempt` the step's current check run, begun now, without writing it: it is
 * written when it completes (closeStepCheck). A new attempt gets a new check run.
 */
export function beginStepCheck(d: Draft, stepId: string, attempt: number): void {
  d.setStep(stepId, { check: { externalId: stepCheckExternalId(d.state.runId, stepId, attempt), attempt, startedAt: d.now } });
}

/** Begins the step's check run for `attempt` and shows it in progress at once (a step that waits). */
export function openStepCheck(d: Draft, stepId: string, attempt: number, title: string, summary = ''): void {
  beginStepCheck(d, stepId, attempt);
  emitStepCheck(d, stepId, 'in_progress', null, title, summary);
}

/**
 * Shows the step's open check run with a new text (a waiting step whose reason to wait
 * changed). The key carries the time: each change is a write of its own.
 */
export function retitleStepCheck(d: Draft, stepId: string, title: string, summary = ''): void {
  if (!d.step(stepId).check) return;
  emitStepCheck(d, stepId, 'in_progress', null, title, summary, `@${d.now}`);
}

/** Completes the step's current check run (creating one if the step never had one). */
export function closeStepCheck(d: Draft, stepId: string, conclusion: CheckConclusion, title: string, summary = ''): void {
  const st = d.step(stepId);
  if (!st.check) d.setStep(stepId, { check: { externalId: stepCheckExternalId(d.state.runId, stepId, st.opening), attempt: st.opening, startedAt: null } });
  emitStepCheck(d, stepId, 'completed', conclusion, title, summary);
}

function emitStepCheck(
  d: Draft,
  stepId: string,
  status: CheckStatus,
  conclusion: CheckConclusion | null,
  title: string,
  summary: string,
  keySuffix = '',
): void {
  const check = d.step(stepId).check!;
  emitCheck(d, {
    type: 'check-run',
    runId: d.state.runId,
    key: `${check.externalId}/${status}${keySuffix}`,
    name: stepCheckName(d.workflow.name, stepId),
    externalId: check.externalId,
    headSha: d.state.head,
    status,
    conclusion,
    title,
    summary: clip(summary),
    detailsUrl: null,
    startedAt: check.startedAt ?? null,
  });
}

/** The aggregate check on the run branch head, reflecting the run's status. */
export function aggregateCheck(d: Draft): void {
  const s = d.state;
  const done = s.status !== 'running';
  const conclusion: CheckConclusion | null = !done
    ? null
    : s.status === 'succeeded'
      ? 'success'
      : s.status === 'cancelled'
        ? 'cancelled'
        : 'failure';
  const externalId = aggregateCheckExternalId(s.runId);
  emitCheck(d, {
    type: 'check-run',
    runId: s.runId,
    key: `${externalId}/${s.head}/${done ? s.status : 'in_progress'}`,
    name: aggregateCheckName(d.workflow.name),
    externalId,
    headSha: s.head,
    status: done ? 'completed' : 'in_progress',
    conclusion,
    title: done ? `${s.status}${s.reason ? `: ${s.reason}` : ''}` : 'running',
    summary: s.reason ?? '',
    detailsUrl: null,
    startedAt: null,
  });
}

/**
 * Emits a check run, first completing the same check left in progress on an older commit: a
 * check belongs to a commit, and the run has moved on from that one (neutral: it neither
 * passed nor failed there). Remembers where a check is shown in progress.
 */
function emitCheck(d: Draft, cmd: UpsertCheckRun): void {
  const shown = d.state.checksShown?.[cmd.externalId];
  if (shown !== undefined && shown !== cmd.headSha) {
    d.emit({
      ...cmd,
      key: `${cmd.externalId}/moved@${shown}`,
      headSha: shown,
      status: 'completed',
      conclusion: 'neutral',
      title: `Moved on to ${cmd.headSha.slice(0, 7)}`,
      summary: `The run went on with a newer commit (${cmd.headSha}); this check continues there.`,
      startedAt: null,
    });
  }
  d.emit(cmd);
  const next = { ...d.state.checksShown };
  if (cmd.status === 'in_progress') next[cmd.externalId] = cmd.headSha;
  else delete next[cmd.externalId];
  d.state.checksShown = next;
}
