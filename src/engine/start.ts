// `run.requested`: check who asked and what inputs they gave, then create the run.
// A refusal leaves no run behind, only a reply saying why.
import { aggregateCheck } from './checks-runs.ts';
import type { Draft } from './draft.ts';
import type { RunRequested } from './events.ts';
import { describeInputs, resolveInputs } from './inputs.ts';
import { runBranch } from './naming.ts';
import { admitsAuthor, describeRoles, isAllowed, listsBot } from './roles.ts';
import { newStepState } from './state.ts';
import type { RunState, StepState } from './types.ts';

export function startRun(d: Draft, ev: RunRequested): void {
  // One state holds one run: a second request (label and comment both) changes nothing.
  if (d.state.status !== 'idle') return;
  const reply = (body: string, refused?: string): void =>
    d.emit({ type: 'reply', runId: ev.runId, key: `${ev.key}/reply`, thread: ev.thread, body, ...(refused !== undefined && { refused }) });
  if (ev.trigger !== undefined) {
    // An automatic run: hosts refuse an author who is not admitted before claiming anything, silently
    // (an event is no request, so nobody is owed a reply); this is the same rule, held here too.
    if (!admitsAuthor(d.workflow.on, ev.trigger, ev.actor, ev.permission)) return;
  } else if (!listsBot(d.workflow.on.bots, ev.actor) && !isAllowed(ev.permission, d.workflow.on.roles)) {
    reply(`@${ev.actor}, starting \`${d.workflow.name}\` needs ${describeRoles(d.workflow.on.roles)}; yours is \`${ev.permission}\`. Nothing was run.`, ev.actor);
    return;
  }
  const inputs = resolveInputs(d.workflow, ev.inputs);
  if (!inputs.ok) {
    // A schedule is nobody to mention (`schedule` is someone's login on GitHub): its tracking issue is told.
    const to = ev.trigger === 'schedule' ? '' : `@${ev.actor}, `;
    reply(`${to}\`${d.workflow.name}\` was not started:\n${inputs.errors.map((e) => `- ${e}`).join('\n')}\n\nInputs:\n${describeInputs(d.workflow)}`);
    return;
  }
  const steps: StepState[] = d.workflow.steps.map((step) => newStepState(step.id));
  const s = d.state;
  s.runId = ev.runId;
  s.workflow = d.workflow.name;
  s.manifestHash = ev.manifestHash;
  s.manifestCommit = ev.manifestCommit;
  s.status = 'running';
  s.startedBy = ev.actor;
  s.thread = ev.thread;
  s.startedAt = d.now;
  s.inputs = inputs.inputs;
  s.context = { issue: ev.issue ?? null, pr: ev.pr ?? null, repo: ev.repo ?? null };
  s.baseBranch = ev.baseBranch;
  s.runBranch = runBranch(ev.runId);
  s.head = ev.baseSha;
  s.steps = steps;
  if (ev.fork) s.fork = true;
  if (ev.trigger !== undefined) s.trigger = ev.trigger;
  if (typeof ev.dayCostLeftUsd === 'number' && Number.isFinite(ev.dayCostLeftUsd)) s.budget = { ...s.budget, dayCostLeftUsd: Math.max(0, ev.dayCostLeftUsd) };
  d.visible = true;
  d.statusChanges++; // every step is new: let the scheduler look at all of them
  // A fork run's head is the fork's commit, and it never becomes a branch of this repository:
  // GitHub starts the repository's `on: push` workflows for a branch an App makes, which would
  // run a stranger's code with the repository's secrets. Its branch (what names the run, and
  // what the sweep lists) is made at the default branch's commit the manifest was read from; the
  // workers check the fork's commit out by sha (GitHub keeps it as refs/pull/<n>/head).
  d.emit({ type: 'create-run-branch', runId: ev.runId, key: `${ev.runId}/branch`, branch: s.runBranch, sha: ev.fork ? ev.manifestCommit : ev.baseSha });
  // The aggregate check is shown by showStarted, once the first steps have started.
}

/**
 * Shows a run this event started as in progress (its aggregate check), after the commands that
 * start its first steps (decide.ts): a worker dispatched is what a run waits for, and where
 * writes are paced (the App's write budget serves a run's writes up to its first dispatch first)
 * a check that tells nothing new yet must not stand in front of it. Every host writes the record
 * after all of an event's commands, so a record never says a check is shown that is not; a start
 * that dies between the dispatch and the check leaves no record, and its redelivery looks the
 * check up by external id and creates it (hosts/github/checks.ts). A run that already ended
 * (its budget, a step failing at once) showed its aggregate completed: nothing more here.
 */
export function showStarted(d: Draft, previous: RunState): void {
  if (previous.status === 'idle' && d.state.status === 'running') aggregateCheck(d);
}
