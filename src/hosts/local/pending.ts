// After a kill, which effects must be done again: those the engine asked for whose
// result never made it into events.jsonl. Read from the replayed state, never guessed:
// a worker attempt still `running`, a merge still in progress, a pull request or labels not
// yet reported. The same command (same attempt, same key) is executed again; finished
// steps are never touched.
import type { Command, RunState } from '../../engine/index.ts';

export function unfinishedEffects(state: RunState, commands: readonly Command[]): Command[] {
  if (state.status !== 'running') return [];
  const out: Command[] = [];
  const last = <T extends Command>(pred: (c: Command) => c is T): T | undefined => [...commands].reverse().find(pred);
  const branch = last((c): c is Extract<Command, { type: 'create-run-branch' }> => c.type === 'create-run-branch');
  if (branch) out.push(branch);
  for (const step of state.steps) {
    for (const job of step.jobs) {
      if (job.status !== 'running') continue;
      const cmd = last(
        (c): c is Extract<Command, { type: 'dispatch-worker' }> =>
          c.type === 'dispatch-worker' && c.step === step.id && c.slot === job.slot && c.attempt === job.attempt,
      );
      if (cmd) out.push(cmd);
    }
    // A label step still running never heard its answer.
    if (step.status === 'running') {
      const labels = last((c): c is Extract<Command, { type: 'apply-labels' }> => c.type === 'apply-labels' && c.step === step.id);
      if (labels) out.push(labels);
    }
    if (step.status === 'running' && state.pr === null) {
      const pr = last((c): c is Extract<Command, { type: 'ensure-pull-request' }> => c.type === 'ensure-pull-request' && c.step === step.id);
      if (pr) out.push(pr);
    }
  }
  const m = state.merging;
  if (m) {
    const cmd = last(
      (c): c is Extract<Command, { type: 'merge-step-branch' }> =>
        c.type === 'merge-step-branch' && c.step === m.step && c.slot === m.slot && c.attempt === m.attempt,
    );
    if (cmd) out.push(cmd);
  }
  return out;
}
