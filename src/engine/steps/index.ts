// The step kinds, by name.
import type { Step } from '../../manifest/types.ts';
import { askStep } from './ask.ts';
import { approveStep } from './approve.ts';
import { checksStep } from './checks.ts';
import type { StepKindHandler } from './kind.ts';
import { labelStep } from './label.ts';
import { pullRequestStep } from './pull-request.ts';
import { reviewStep } from './review.ts';
import { workerStep } from './worker.ts';

// Built on first use: the step modules and jobs.ts import each other, so the handler
// objects may not exist yet while modules are still being evaluated.
let handlers: Record<Step['kind'], StepKindHandler<never>> | undefined;

export function handlerFor(step: Step): StepKindHandler {
  handlers ??= {
    agent: workerStep,
    run: workerStep,
    ask: askStep,
    review: reviewStep,
    checks: checksStep,
    approve: approveStep,
    'pull-request': pullRequestStep,
    label: labelStep,
  };
  return handlers[step.kind] as StepKindHandler;
}
