// The step kinds, by name.
import type { Step } from '../../manifest/types.ts';
import { askStep } from './ask.ts';
import { approveStep } from './approve.ts';
import { checksStep } from './checks.ts';
import type { StepKindHandler } from './kind.ts';
import { pullRequestStep } from './pull-request.ts';
import { reviewStep } from './review.ts';
import { workerStep } from './worker.ts';

const handlers: Record<Step['kind'], StepKindHandler<never>> = {
  agent: workerStep,
  run: workerStep,
  ask: askStep,
  review: reviewStep,
  checks: checksStep,
  approve: approveStep,
  'pull-request': pullRequestStep,
};

export function handlerFor(step: Step): StepKindHandler {
  return handlers[step.kind] as StepKindHandler;
}
