// baton's questions in a thread, and the one door through which a comment becomes answers.
// A comment answers only when it says so (docs/manifest.md, "Answering questions"):
//   - it quote-replies the question comment: a line quoted once (`> …`) holds the question's
//     header, `baton run <id> asks (step <step>)`; the answers are its unquoted lines; or
//   - its command is `/baton answer [run-id]`: the answers follow on that line and the next.
// Anything else — a maintainer's numbered list about something else, a pasted text, a "+1" —
// is no answer: it is never looked at again, costs no read of the run and no write.
// Every host path that turns a comment into `questions.answered` (the App's webhook, the
// Action's job and its catch-up of displaced comments) asks `answerForm` and `answersFor`.
import type { RunState } from '../../engine/index.ts';
import { parseCommentCommand } from './comment-command.ts';

/** The question comment people answer: its header names the run and the step, which a quote-reply carries along. */
export function questionsText(state: RunState, step: string, questions: string[]): string {
  const list = questions.map((q, i) => `${i + 1}. ${q}`).join('\n');
  const how =
    questions.length === 1
      ? 'To answer, quote-reply this comment (its **…** menu → **Quote reply**) and write your answer under the quote, or write a comment that starts with `/baton answer` followed by your answer. Other comments are not answers.'
      : 'To answer, quote-reply this comment (its **…** menu → **Quote reply**) and write your answers under the quote, or write a comment that starts with `/baton answer`; number the answers like the questions (`1. …`, `2. …`). Other comments are not answers.';
  return `❓ **baton run \`${state.runId}\` asks** (step \`${step}\`):\n\n${list}\n\n${how}`;
}

/** How a comment answers: by quoting a question comment, or by `/baton answer`. */
export interface AnswerForm {
  via: 'quote' | 'command';
  /** The run the comment names (the quoted header's, or `/baton answer <run-id>`'s); else the thread's newest run. */
  runId: string | undefined;
  /** The step whose question was quoted (undefined for `/baton answer`). */
  step: string | undefined;
  /** The text holding the answers (quoted lines are left out when they are read). */
  text: string;
}

/**
 * Whether a comment is meant as answers, read from the comment alone (no run is loaded for
 * one that is not). Another `/baton` command is never an answer, quote or not.
 */
export function answerForm(body: string): AnswerForm | undefined {
  const command = parseCommentCommand(body);
  if (command?.kind === 'answer') return { via: 'command', runId: command.runId, step: undefined, text: command.text };
  if (command) return undefined;
  const header = quotedHeader(body);
  return header ? { via: 'quote', runId: header.runId, step: header.step, text: body } : undefined;
}

/**
 * The header of a question comment in a comment's own quote. GitHub's Quote reply turns the
 * quoted comment's rendered text back into Markdown (github/quote-selection), so the header
 * comes back with its `**` and backticks, or without them: these are dropped before reading.
 * Only a line quoted once counts: `> > …` is a quote of someone's quote (a reply to their
 * answer), not a reply to baton's question.
 */
function quotedHeader(body: string): { runId: string; step: string | undefined } | undefined {
  for (const line of body.split(/\r?\n/)) {
    const m = /^\s{0,3}>(?!\s*>)(.*)$/.exec(line);
    if (!m) continue;
    const plain = m[1]!.replace(/[*_`\\]/g, '').replace(/\s+/g, ' ');
    const h = /\bbaton run ([a-z0-9][a-z0-9-]*-\d+-\d+) asks(?: \(step ([A-Za-z0-9_-]+)\))?/.exec(plain);
    if (h) return { runId: h[1]!, step: h[2] };
  }
  return undefined;
}

/** What a comment that is meant as answers gives the run: the answers, or why it gives none (said to whoever wrote `/baton answer`). */
export type AnswersFor = { step: string; answers: (string | null)[] } | { none: string };

/** The answers an answer form gives a run (the one it names, or the thread's newest). */
export function answersFor(form: AnswerForm, state: RunState): AnswersFor {
  if (form.runId !== undefined && form.runId !== state.runId) return { none: `this answers run \`${form.runId}\`, not run \`${state.runId}\`` };
  const ask = openAsk(state);
  if (!ask) return { none: `run \`${state.runId}\` has no open question` };
  if (form.step !== undefined && form.step !== ask.step) return { none: `the quoted question is step \`${form.step}\`'s, which is no longer open; step \`${ask.step}\` asks now` };
  const answers = parseAnswers(form.text, ask.total, ask.open);
  if (answers.every((a) => a === null)) return { none: 'no answer was found after `/baton answer` (write it after the command, numbered like the questions when there are several)' };
  return { step: ask.step, answers };
}

/**
 * Answers by position. "1. …" / "2) …" lines answer those questions (a numbered answer
 * may run over several lines); an unnumbered reply answers the first open question.
 * Quoted lines (`> …`) are what people reply to, not their answer.
 */
export function parseAnswers(body: string, total: number, open: boolean[]): (string | null)[] {
  const lines = body.split(/\r?\n/).filter((l) => !/^\s*>/.test(l));
  const answers: (string | null)[] = Array.from({ length: total }, () => null);
  let current = -1;
  let numbered = false;
  for (const line of lines) {
    const m = /^\s*(\d+)[.)]\s+(.*)$/.exec(line);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= total) {
      current = Number(m[1]) - 1;
      numbered = true;
      answers[current] = m[2]!.trim();
    } else if (current >= 0 && line.trim()) {
      answers[current] = `${answers[current]}\n${line.trim()}`;
    }
  }
  if (numbered) return answers;
  const text = lines.join('\n').trim();
  const first = open.findIndex((o) => o);
  if (text && first >= 0) answers[first] = text;
  return answers;
}

/** The ask step of a run that waits for answers, with which questions are still open. */
export function openAsk(state: RunState): { step: string; total: number; open: boolean[] } | undefined {
  if (state.status !== 'running') return undefined;
  for (const s of state.steps) {
    if (s.status === 'running' && s.ask) return { step: s.id, total: s.ask.questions.length, open: s.ask.answers.map((a) => a === null) };
  }
  return undefined;
}
