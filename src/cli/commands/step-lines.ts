// The step list `baton status` prints, for a local run and for a run on GitHub alike.
import { duration } from '../../record/format.ts';
import type { RunView } from '../../record/view.ts';

/** One line per step: id, state, time, cost, attempt, why (the same for local runs and runs on GitHub). */
export function stepLines(s: Pick<RunView, 'steps'>, now = Date.now()): string[] {
  const width = Math.max(0, ...s.steps.map((x) => x.id.length));
  return s.steps.map((x) => {
    const time = x.startedAt !== null ? duration((x.finishedAt ?? now) - x.startedAt) : '';
    return `  ${x.id.padEnd(width)}  ${x.status.padEnd(9)}  ${time.padEnd(7)}  ${x.cost.padEnd(8)}  ${x.attempt > 1 ? `attempt ${x.attempt}  ` : ''}${x.reason ?? ''}`.trimEnd();
  });
}
