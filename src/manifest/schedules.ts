// `on.schedule[].cron`: the schema says it is a string; whether GitHub would take it as a
// schedule (its syntax, its 5-minute floor) is read here with the same parser the schedule
// handler ticks with, so what validates is what runs.
import { cronProblem } from '../engine/cron.ts';
import type { Workflow } from './types.ts';
import type { Report } from './semantic.ts';

export function checkSchedules(wf: Workflow, report: Report): void {
  wf.on.schedule?.forEach((entry, i) => {
    const problem = cronProblem(entry.cron);
    if (problem) report(`/on/schedule/${i}/cron`, `\`cron\` in on.schedule #${i + 1}: ${problem}`);
  });
}
