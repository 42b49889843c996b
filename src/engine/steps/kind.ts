// What each step kind must do. The scheduler starts a step once its needs are done and
// its `if` holds; jobs report back through jobSucceeded / jobFailed; `update` runs after
// every event while the step is running (deadlines, gates that read the run's head).
import type { Step } from '../../manifest/types.ts';
import type { Draft } from '../draft.ts';
import type { JobState } from '../types.ts';

export interface StepKindHandler<S extends Step = Step> {
  start(d: Draft, step: S): void;
  /** A job's result is in (valid, and merged when the job writes). */
  jobSucceeded(d: Draft, step: S, job: JobState): void;
  /** A job failed after its retries. */
  jobFailed(d: Draft, step: S, job: JobState): void;
  update?(d: Draft, step: S): void;
}
