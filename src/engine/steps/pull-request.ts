// `pull-request` steps: open (or update) the PR from the run branch. Failures of the
// host's API call are retried within `retries`, then fail the step with the error.
import type { PullRequestStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import { deliver } from '../deliverable.ts';
import type { Draft } from '../draft.ts';
import type { PullRequestEnsured, PullRequestFailed } from '../events.ts';
import { failStep } from '../lifecycle.ts';
import { renderProse } from '../scope.ts';
import type { StepKindHandler } from './kind.ts';

function start(d: Draft, step: PullRequestStep): void {
  openStepCheck(d, step.id, d.step(step.id).opening, 'opening the pull request');
  ensure(d, step);
}

function ensure(d: Draft, step: PullRequestStep): void {
  const title = renderProse(d, step.title);
  if (!title.ok) return failStep(d, step.id, `title: ${title.error}`);
  const body = step.body === undefined ? { ok: true as const, value: '' } : renderProse(d, step.body);
  if (!body.ok) return failStep(d, step.id, `body: ${body.error}`);
  const st = d.step(step.id);
  d.setStep(step.id, { note: title.value });
  const footer = `Opened by baton run \`${d.state.runId}\` (workflow \`${d.workflow.name}\`).`;
  const pushToHead = pushesToHead(d);
  d.emit({
    type: 'ensure-pull-request',
    runId: d.state.runId,
    key: `${d.state.runId}/${step.id}/pr/${st.opening}/${st.failures}`,
    step: step.id,
    head: d.state.runBranch,
    // Pushed to the pull request's own branch, the run's base, whatever `base` says.
    base: pushToHead !== undefined ? d.state.baseBranch : (step.base ?? d.state.baseBranch),
    title: title.value,
    body: body.value.trim() ? `${body.value.trim()}\n\n---\n${footer}` : footer,
    draft: step.draft,
    labels: step.labels,
    ...(pushToHead !== undefined && { pushToHead }),
  });
}

/**
 * The pull request whose branch this step pushes to instead of opening one: a run that
 * `on.pull_request` started on a pull request of this repository (never a fork's), whose
 * trigger says `push-to-head: true`. Its base branch is then that pull request's head branch.
 */
function pushesToHead(d: Draft): number | undefined {
  const s = d.state;
  if (s.trigger !== 'pull_request' || s.fork || s.thread?.kind !== 'pull' || !d.workflow.on.pullRequest?.pushToHead) return undefined;
  return s.thread.number;
}

export function pullRequestEnsured(d: Draft, step: PullRequestStep, ev: PullRequestEnsured): void {
  d.state.pr = { number: ev.number, url: ev.url };
  d.visible = true;
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  // The note (if any) replaces the title shown while opening: the record says why the PR is not as asked.
  d.setStep(step.id, { note: ev.note ?? null });
  // Number 0: a local run, whose result is its branch (named by the url) and no numbered PR.
  // Done once the pull request is read back at the run's head (deliverable.ts).
  const branch = pushesToHead(d) !== undefined ? d.state.baseBranch : d.state.runBranch;
  deliver(
    d,
    step.id,
    { kind: 'pull-request', number: ev.number, branch, head: d.state.head },
    { number: ev.number, url: ev.url },
    ev.number > 0 ? `#${ev.number}` : ev.url,
    ev.note ? `${ev.url}\n\n${ev.note}` : ev.url,
  );
}

export function pullRequestFailed(d: Draft, step: PullRequestStep, ev: PullRequestFailed): void {
  if (d.state.status !== 'running' || d.step(step.id).status !== 'running') return;
  const failures = d.step(step.id).failures + 1;
  d.setStep(step.id, { failures });
  if (failures <= step.retries) return ensure(d, step);
  failStep(d, step.id, `could not open the pull request: ${ev.error}`);
}

const noJobs = (): void => {
  throw new Error('baton engine: a pull-request step has no worker jobs');
};

export const pullRequestStep: StepKindHandler<PullRequestStep> = { start, jobSucceeded: noJobs, jobFailed: noJobs };
