// decide() throughput: replaying a recorded 100-step run, events per second.
import { decide } from '../../src/engine/decide.ts';
import { emptyState } from '../../src/engine/state.ts';
import { medianMs } from '../measure.ts';
import type { Figure } from './figure.ts';
import { chainWorkflow, recordRun } from './engine-runs.ts';

export const decideEventsPerSecond: Figure = {
  name: 'decide_events_per_s',
  description: 'decide() throughput over the events of a 100-step run',
  unit: 'events/s',
  target: { op: '>=', value: 50_000 },
  measure() {
    const { workflow, events } = recordRun(chainWorkflow(100));
    const ms = medianMs(
      () => {
        let state = emptyState();
        for (const e of events) state = decide(state, e, workflow).state;
        if (state.status !== 'succeeded') throw new Error('replay did not finish the run');
      },
      { warmup: 10, runs: 41 },
    );
    return Math.round(events.length / (ms / 1000));
  },
};
