// The cron of the sweep (app/sweep.ts) in Actions-only mode: baton.yml always lists it, and
// a `schedule` event that names it sweeps the open runs; every other cron of baton.yml is a
// manifest's `on.schedule`. GitHub runs schedules at most every 5 minutes
// (docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#schedule).
import { cronText } from '../engine/cron.ts';

export const SWEEP_CRON = '*/5 * * * *';

/**
 * Whether a `schedule` event is the sweep's: its payload names the cron that fired
 * (`github.event.schedule`). A payload without one (a runner older than that field) is
 * taken for the sweep, as baton.yml had no other cron then.
 */
export function isSweepSchedule(payload: { schedule?: unknown }): boolean {
  return typeof payload.schedule !== 'string' || cronText(payload.schedule) === SWEEP_CRON;
}
