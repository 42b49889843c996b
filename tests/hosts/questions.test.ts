// The one door through which a comment becomes answers (src/hosts/github/questions.ts): only a
// quote-reply of baton's question comment, or `/baton answer`, answers; any other comment in
// the thread of a waiting run — a maintainer's numbered list about something else — does not.
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../src/engine/index.ts';
import { answerForm, answersFor, questionsText } from '../../src/hosts/github/questions.ts';
import { quoteReply } from '../emulator/quote-reply.ts';
import { Run } from '../engine/harness.ts';
import { ask, workflow } from '../engine/builder.ts';

/** A run `wf-42-1` waiting at its ask step `clarify` with two questions. */
function waiting(): RunState {
  const run = new Run(workflow([ask('clarify', { questions: ['Which module?', 'Keep the old API?'] })]));
  run.start();
  return { ...run.state, runId: 'wf-42-1' };
}

const question = (state: RunState) => `${questionsText(state, 'clarify', ['Which module?', 'Keep the old API?'])}\n<!-- baton:questions wf-42-1/clarify/questions/1 -->`;

/** The answers a comment gives the waiting run, or undefined when it is no answer. */
function answersOf(body: string, state = waiting()): (string | null)[] | undefined {
  const form = answerForm(body);
  if (!form) return undefined;
  const found = answersFor(form, state);
  return 'none' in found ? undefined : found.answers;
}

describe('answers to baton\'s questions', () => {
  it("does not take a maintainer's plain comment in the thread as answers, numbered or not", () => {
    expect(answersOf('1. we should also look at the lexer\n2. and the docs')).toBeUndefined();
    expect(answersOf('The parser module.')).toBeUndefined();
    expect(answerForm('LGTM')).toBeUndefined();
  });

  it('takes a quote-reply of the question comment, the answers being its own lines', () => {
    const state = waiting();
    expect(answersOf(quoteReply(question(state), '1. The parser.\n2. Yes, keep it.'), state)).toEqual(['The parser.', 'Yes, keep it.']);
    // The header as Quote reply may render it, without Markdown; and a quote of part of the comment that keeps the header.
    expect(answersOf('> ❓ baton run wf-42-1 asks (step clarify):\n\n1. The parser.', state)).toEqual(['The parser.', null]);
  });

  it('takes `/baton answer`, on its line or the next ones, with or without the run id', () => {
    expect(answersOf('/baton answer The parser.')).toEqual(['The parser.', null]);
    expect(answersOf('/baton answer\n1. The parser.\n2. Don\'t keep it.')).toEqual(['The parser.', "Don't keep it."]);
    expect(answersOf('/baton answer wf-42-1\n2. No.')).toEqual([null, 'No.']);
  });

  it('does not take a quote of a quote, a quote of another run or step, or a quote without the header', () => {
    const state = waiting();
    expect(answersOf(quoteReply(quoteReply(question(state), '1. The parser.'), 'I disagree.'), state)).toBeUndefined();
    expect(answersOf(quoteReply(question({ ...state, runId: 'wf-42-2' }), '1. The parser.'), state)).toBeUndefined();
    expect(answersOf(quoteReply(question(state).replace('step `clarify`', 'step `confirm`'), '1. The parser.'), state)).toBeUndefined();
    expect(answersOf('> 1. Which module?\n\nThe parser.', state)).toBeUndefined();
  });

  it('says why a `/baton answer` answers nothing', () => {
    const state = waiting();
    const why = (body: string, s = state) => {
      const found = answersFor(answerForm(body)!, s);
      return 'none' in found ? found.none : undefined;
    };
    expect(why('/baton answer')).toContain('no answer was found after `/baton answer`');
    expect(why('/baton answer wf-42-2 yes')).toBe('this answers run `wf-42-2`, not run `wf-42-1`');
    expect(why('/baton answer yes', { ...state, status: 'succeeded' })).toBe('run `wf-42-1` has no open question');
  });

  it('never takes another command, quoted question or not, as answers', () => {
    const state = waiting();
    expect(answerForm(quoteReply(question(state), '/baton cancel'))).toBeUndefined();
    expect(answerForm('> /baton answer yes\n\nno')).toBeUndefined();
  });

  it('says in the question how to answer', () => {
    const text = questionsText(waiting(), 'clarify', ['Which module?', 'Keep the old API?']);
    expect(text).toContain('quote-reply this comment');
    expect(text).toContain('`/baton answer`');
    expect(text).toContain('number the answers like the questions');
  });
});
