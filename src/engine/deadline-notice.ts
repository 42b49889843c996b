// A waiting step past its deadline (an `ask` step's `timeout-hours`, a `checks` gate's
// `timeout-minutes`) fails the run, and that is said in the run's thread as a comment of its
// own: an edit of the status comment notifies nobody, and a run that waited hours for people
// ends while none of them look. One reply per step opening, keyed so the host posts it once
// (its marker; a replayed or redelivered event finds it on the thread).
import { DEADLINE_KEY_SUFFIX } from './deadline-key.ts';
import type { Draft } from './draft.ts';

export function sayDeadlinePassed(d: Draft, stepId: string, what: string): void {
  const s = d.state;
  // The person who asked for the run is told; a run an event or a schedule started has nobody to mention.
  const who = s.trigger === undefined && s.startedBy ? `@${s.startedBy}, ` : '';
  d.emit({
    type: 'reply',
    runId: s.runId,
    key: `${s.runId}/${stepId}/${d.step(stepId).opening}${DEADLINE_KEY_SUFFIX}`,
    thread: s.thread,
    body: `⏰ ${who}step \`${stepId}\` of run \`${s.runId}\` waited past its deadline: ${what}. The run failed. \`/baton retry ${stepId}\` waits again.`,
  });
}
