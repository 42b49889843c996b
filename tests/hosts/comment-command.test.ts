import { describe, expect, it } from 'vitest';
import { parseCommentCommand } from '../../src/hosts/github/comment-command.ts';

describe('comment commands', () => {
  it('starts a workflow with key=value inputs, quotes keeping spaces', () => {
    expect(parseCommentCommand('/baton fix-issue scope=api note="two words" x=\'a b\'')).toEqual({
      kind: 'start',
      workflow: 'fix-issue',
      inputs: { scope: 'api', note: 'two words', x: 'a b' },
    });
  });

  it('finds the command on any line, but only at the start of a line', () => {
    expect(parseCommentCommand('Thanks!\n\n  /baton status\nmore text')).toEqual({ kind: 'status' });
    expect(parseCommentCommand('please run /baton status')).toBeUndefined();
    expect(parseCommentCommand('/batonize this')).toBeUndefined();
  });

  it('ignores commands quoted or inside code blocks', () => {
    expect(parseCommentCommand('> /baton cancel\n\nno!')).toBeUndefined();
    expect(parseCommentCommand('```\n/baton cancel\n```')).toBeUndefined();
    expect(parseCommentCommand('~~~sh\n/baton cancel\n~~~\n/baton status')).toEqual({ kind: 'status' });
  });

  it('parses the built-ins', () => {
    expect(parseCommentCommand('/baton')).toEqual({ kind: 'help' });
    expect(parseCommentCommand('/baton help')).toEqual({ kind: 'help' });
    expect(parseCommentCommand('/baton cancel')).toEqual({ kind: 'cancel' });
    expect(parseCommentCommand('/baton approve')).toEqual({ kind: 'approve' });
    expect(parseCommentCommand('/baton retry implement')).toEqual({ kind: 'retry', step: 'implement' });
    expect(parseCommentCommand('/baton plan fix-issue scope=ui')).toEqual({ kind: 'plan', workflow: 'fix-issue', inputs: { scope: 'ui' } });
  });

  it('reads `/baton answer` as free text after it, naming a run only with a run id', () => {
    expect(parseCommentCommand("/baton answer don't \"keep\" it\nand more")).toEqual({ kind: 'answer', runId: undefined, text: 'don\'t "keep" it\nand more' });
    expect(parseCommentCommand('/baton answer fix-12-1\n1. yes')).toEqual({ kind: 'answer', runId: 'fix-12-1', text: '1. yes' });
    expect(parseCommentCommand('/baton answer')).toEqual({ kind: 'answer', runId: undefined, text: '' });
  });

  it('explains malformed commands', () => {
    expect(parseCommentCommand('/baton retry')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('takes the id of one step') });
    expect(parseCommentCommand('/baton cancel now')).toMatchObject({ kind: 'invalid', message: '`/baton cancel` takes no arguments (got `now`)' });
    expect(parseCommentCommand('/baton fix-issue api')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('expected `key=value`, got `api`') });
    expect(parseCommentCommand('/baton fix-issue a=1 a=2')).toMatchObject({ kind: 'invalid', message: 'input `a` is given twice' });
    expect(parseCommentCommand('/baton fix-issue note="open')).toMatchObject({ kind: 'invalid', message: 'a double quote is never closed' });
    expect(parseCommentCommand('/baton scope=api')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('needs a workflow before its inputs') });
  });

  it('reads the raises of a retry: `--budget +$N`, `--minutes +N`, `--turns +N`, each once', () => {
    expect(parseCommentCommand('/baton retry implement --budget +$2')).toEqual({ kind: 'retry', step: 'implement', raise: { costUsd: 2 } });
    expect(parseCommentCommand('/baton retry implement --turns +20 --minutes +15 --budget +$0.50')).toEqual({ kind: 'retry', step: 'implement', raise: { turns: 20, minutes: 15, costUsd: 0.5 } });
    expect(parseCommentCommand('/baton retry implement --budget +2')).toEqual({ kind: 'retry', step: 'implement', raise: { costUsd: 2 } });
  });

  it('refuses a raise that is not one, naming the word: comment text is anyone\'s', () => {
    const bad: [string, string][] = [
      ['/baton retry implement --budget +$abc', '`--budget` takes an amount to add, like `--budget +$2`; `+$abc` is not one'],
      ['/baton retry implement --budget 2', '`2` is not one'],
      ['/baton retry implement --budget +$-1', 'is not one'],
      ['/baton retry implement --budget +$1e9', 'is not one'],
      ['/baton retry implement --budget +$0', 'is not one'],
      ['/baton retry implement --budget +$2.505', 'is not one'],
      ['/baton retry implement --turns +1.5', '`--turns` takes an amount to add, like `--turns +20`'],
      ['/baton retry implement --minutes', '`--minutes` needs an amount, like `--minutes +20`'],
      ['/baton retry implement --turns +2 --turns +3', '`--turns` is given twice'],
      ['/baton retry implement --tokens +5', '`--tokens` is not an option of a retry'],
      ['/baton retry implement other', '`other` is not an option of a retry'],
      ['/baton retry --budget +$2', 'takes the id of one step'],
      ['/baton retry implement --budget "+$2 `@admin`"', "`+$2 '@admin'` is not one"],
    ];
    for (const [text, message] of bad) {
      const c = parseCommentCommand(text);
      expect(c, text).toMatchObject({ kind: 'invalid' });
      expect((c as { message: string }).message, text).toContain(message);
    }
  });
});
