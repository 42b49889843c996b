// What a checks gate says about CI that waits for a person. GitHub creates the `pull_request`
// workflow runs that a workflow's GITHUB_TOKEN causes (a PR it opened, a push it made) in an
// approval-required state: completed with conclusion `action_required`, no jobs run, until
// someone with write access selects "Approve workflows to run" (docs "GITHUB_TOKEN", "When
// GITHUB_TOKEN triggers workflow runs"). Other apps use the same conclusion to ask a person
// for an action. Either way nothing in the code is wrong: a fix round could not help.

/** The conclusion of a check or suite that waits for a person. */
export const AWAITING_APPROVAL = 'action_required';

/** The two ways around the wait, in one line (timeout messages). */
export const AVOID_APPROVAL =
  'approve them on the pull request; to avoid this, in Actions-only mode run `baton init --app-token` so baton pushes and opens pull requests with an App token, or set `workflow:` on the checks step so baton dispatches CI itself';

/** The step's check run summary while it waits for approval. */
export const APPROVAL_HELP = [
  'GitHub holds these checks until someone with write access approves them ("Approve workflows to run" on the pull request).',
  'baton keeps waiting (up to the step\'s `timeout-minutes`) and goes on when they complete; it does not start a fix round for them.',
  '',
  'GitHub does this for `pull_request` workflow runs caused by a workflow\'s `GITHUB_TOKEN`. To avoid the wait:',
  '- Actions-only mode: `baton init --app-token`, so that baton pushes and opens pull requests with a GitHub App token, whose events start CI without approval;',
  '- or `workflow: <ci file>` on this checks step (`checks.workflow`), so that baton dispatches the CI workflow itself (a `workflow_dispatch` always runs).',
].join('\n');

/** The step's status while something waits for approval; null when nothing does. */
export function approvalNote(approval: string[]): string | null {
  return approval.length ? `waiting for approval: ${approval.join(', ')}` : null;
}
