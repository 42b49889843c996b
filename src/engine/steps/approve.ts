// `approve` steps: wait for `/baton approve` (or an approving PR review) from someone
// whose permission is enough for the step's roles; others get a reply naming the role.
import type { ApproveStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import type { Draft } from '../draft.ts';
import type { Actor } from '../events.ts';
import { succeedStep } from '../lifecycle.ts';
import { describeRoles, isAllowed } from '../roles.ts';
import { renderProse } from '../scope.ts';
import type { StepKindHandler } from './kind.ts';

function start(d: Draft, step: ApproveStep): void {
  const message = step.message === undefined ? { ok: true as const, value: '' } : renderProse(d, step.message);
  const text = message.ok ? message.value.trim() : '';
  d.setStep(step.id, { note: text || null });
  openStepCheck(d, step.id, d.step(step.id).opening, 'waiting for approval', text);
  d.emit({
    type: 'reply',
    runId: d.state.runId,
    key: `${d.state.runId}/${step.id}/approval-request/${d.step(step.id).opening}`,
    thread: d.state.thread,
    body: [
      `⏸️ Run \`${d.state.runId}\` is waiting for approval at step \`${step.id}\`.`,
      text,
      `Someone with ${describeRoles(step.roles)} can comment \`/baton approve\` to go on.`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  });
}

/** Applies an approval; a refusal is a reply naming the role needed. */
export function approve(d: Draft, step: ApproveStep, who: Actor, key: string): void {
  if (!isAllowed(who.permission, step.roles)) {
    d.emit({
      type: 'reply',
      runId: d.state.runId,
      key: `${key}/refusal`,
      thread: d.state.thread,
      body: `@${who.actor}, approving step \`${step.id}\` needs ${describeRoles(step.roles)}; yours is \`${who.permission}\`.`,
      refused: who.actor,
    });
    return;
  }
  succeedStep(d, step.id, { approvedBy: who.actor }, `approved by @${who.actor}`);
}

const noJobs = (): void => {
  throw new Error('baton engine: an approve step has no worker jobs');
};

export const approveStep: StepKindHandler<ApproveStep> = { start, jobSucceeded: noJobs, jobFailed: noJobs };
