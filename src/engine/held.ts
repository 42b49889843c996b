// Whether a run's head is held off its run branch. GitHub starts the repository's `on: push`
// workflows for a branch baton's App moves, so agent-written code on `baton/<run>` runs in push CI
// with the repository's secrets. While the workflow still has an `approve` step that has not
// passed, the head stays off the branch (hosts keep it under a ref that starts no workflow); the
// branch moves once the approval passes, or when something needs it at the head before that
// (the pull request, a checks gate's dispatch). No `approve` step: nothing is held.
import type { Workflow } from '../manifest/types.ts';
import { stepState } from './state.ts';
import { DONE_STEP_STATUSES, type RunState } from './types.ts';

export function headHeld(state: RunState, workflow: Workflow): boolean {
  return workflow.steps.some((step) => step.kind === 'approve' && !DONE_STEP_STATUSES.includes(stepState(state, step.id)?.status ?? 'waiting'));
}
