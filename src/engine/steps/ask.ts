// `ask` steps: post questions where the run lives and wait until people with the
// workflow's roles have answered all of them, or `timeout-hours` passes.
import { sayDeadlinePassed } from '../deadline-notice.ts';
import type { AskStep } from '../../manifest/types.ts';
import { openStepCheck } from '../checks-runs.ts';
import { deliver } from '../deliverable.ts';
import type { Draft } from '../draft.ts';
import type { QuestionsAnswered } from '../events.ts';
import { failStep, succeedStep } from '../lifecycle.ts';
import { describeRoles, isAllowed } from '../roles.ts';
import { isTainted, render, renderProse } from '../scope.ts';
import { quietMentions } from '../mentions.ts';
import type { StepKindHandler } from './kind.ts';

function questionsOf(d: Draft, step: AskStep): { ok: true; value: string[] } | { ok: false; error: string } {
  if (Array.isArray(step.questions)) {
    const out: string[] = [];
    for (const q of step.questions) {
      const r = renderProse(d, q);
      if (!r.ok) return { ok: false, error: `questions: ${r.error}` };
      out.push(r.value);
    }
    return { ok: true, value: out };
  }
  const r = render(d, step.questions);
  if (!r.ok) return { ok: false, error: `questions: ${r.error}` };
  if (!Array.isArray(r.value)) return { ok: false, error: 'questions: expected a list of questions' };
  const tainted = isTainted(d, step.questions);
  if (!tainted.ok) return { ok: false, error: `questions: ${tainted.error}` };
  const text = (q: unknown) => (typeof q === 'string' ? q : JSON.stringify(q));
  // An agent's questions: posted by baton's bot, their mentions must not page anyone (./mentions.ts).
  return { ok: true, value: r.value.map((q) => (tainted.value ? quietMentions(text(q)) : text(q))) };
}

function start(d: Draft, step: AskStep): void {
  const qs = questionsOf(d, step);
  if (!qs.ok) return failStep(d, step.id, qs.error);
  const questions = qs.value.filter((q) => q.trim() !== '');
  if (questions.length === 0) return succeedStep(d, step.id, { answers: [], answeredBy: [] }, 'no questions to ask');
  const deadline = step.timeoutHours === undefined ? null : d.now + step.timeoutHours * 3_600_000;
  d.setStep(step.id, { ask: { questions, answers: questions.map(() => null), answeredBy: [], postedAt: d.now, deadline } });
  openStepCheck(d, step.id, d.step(step.id).opening, `waiting for ${questions.length} answer(s)`, questions.map((q) => `- ${q}`).join('\n'));
  d.emit({
    type: 'post-questions',
    runId: d.state.runId,
    key: questionsKey(d, step),
    step: step.id,
    thread: d.state.thread,
    questions,
    roles: d.workflow.on.roles,
    deadline,
  });
}

function update(d: Draft, step: AskStep): void {
  const ask = d.step(step.id).ask;
  if (ask?.deadline != null && d.now >= ask.deadline) {
    const why = `no answer within ${step.timeoutHours} hours`;
    sayDeadlinePassed(d, step.id, why);
    failStep(d, step.id, why);
  }
}

/** Applies a reply; returns false when no ask step was waiting for it. */
export function answer(d: Draft, step: AskStep, ev: QuestionsAnswered): void {
  if (!isAllowed(ev.permission, d.workflow.on.roles)) {
    d.emit({
      type: 'reply',
      runId: d.state.runId,
      key: `${ev.key}/refusal`,
      thread: d.state.thread,
      body: `@${ev.actor}, thanks — but answers to baton's questions count only from people with ${describeRoles(d.workflow.on.roles)}.`,
      refused: ev.actor,
    });
    return;
  }
  const ask = d.step(step.id).ask!;
  const answers = ask.answers.map((a, i) => {
    const given = ev.answers[i];
    return typeof given === 'string' && given.trim() !== '' ? given : a;
  });
  const answeredBy = ask.answeredBy.includes(ev.actor) ? ask.answeredBy : [...ask.answeredBy, ev.actor];
  d.setStep(step.id, { ask: { ...ask, answers, answeredBy } });
  d.visible = true;
  if (answers.every((a) => a !== null)) {
    const outputs = { answers: answers as string[], answeredBy };
    const title = `answered by ${answeredBy.map((a) => '@' + a).join(', ')}`;
    // Done once the question comment is read back where people answered it (deliverable.ts).
    if (d.state.thread) return deliver(d, step.id, { kind: 'questions', thread: d.state.thread, marker: questionsKey(d, step) }, outputs, title);
    succeedStep(d, step.id, outputs, title);
  }
}

/** The post-questions command's key, which the question comment carries as its marker. */
const questionsKey = (d: Draft, step: AskStep): string => `${d.state.runId}/${step.id}/questions/${d.step(step.id).opening}`;

const noJobs = (): void => {
  throw new Error('baton engine: an ask step has no worker jobs');
};

export const askStep: StepKindHandler<AskStep> = { start, update, jobSucceeded: noJobs, jobFailed: noJobs };
