import { describe, expect, it } from 'vitest';
import { emptyState } from '../../src/engine/index.ts';
import { findRecords } from '../../src/record/find.ts';
import { writeStateBlock } from '../../src/record/state-block.ts';
import { RECORD_MARKER } from '../../src/record/render.ts';
import { parseRunId, parseWorkerRunName, runIdOfBranch, runIdOfPullBody, stepLabel } from '../../src/hosts/github/run-id.ts';
import { parseAnswers } from '../../src/hosts/github/questions.ts';

describe('github host translations', () => {
  it('derives the thread and attempt from run ids, branches, run-names and PR footers', () => {
    expect(parseRunId('fix-issue-42-1')).toEqual({ runId: 'fix-issue-42-1', workflow: 'fix-issue', thread: 42, n: 1 });
    expect(runIdOfBranch('refs/heads/baton/fix-issue-42-1')).toBe('fix-issue-42-1');
    expect(runIdOfBranch('main')).toBeUndefined();
    expect(parseWorkerRunName('baton fix-issue-42-1 implement[2] #3')).toEqual({ runId: 'fix-issue-42-1', step: 'implement', slot: '2', attempt: 3 });
    expect(parseWorkerRunName('baton fix-issue-42-1 plan #1')).toMatchObject({ slot: '0' });
    expect(stepLabel('review', 'fix-1')).toBe('review[fix-1]');
    expect(runIdOfPullBody('x\n---\nOpened by baton run `fix-7-2` (workflow `fix`).')).toBe('fix-7-2');
  });

  it('reads numbered answers, else the whole reply answers the first open question', () => {
    expect(parseAnswers('1. Yes\n2) No, and\nmore', 2, [true, true])).toEqual(['Yes', 'No, and\nmore']);
    expect(parseAnswers('> quoted\nThe parser.', 2, [false, true])).toEqual([null, 'The parser.']);
  });

  it('trusts only records written by the bot with a matching hash', () => {
    const state = { ...emptyState(), runId: 'r-1-1', runBranch: 'baton/r-1-1', status: 'running' as const };
    const body = `${RECORD_MARKER}\n${writeStateBlock(state)}`;
    const found = findRecords(
      [
        { id: 1, body, author: 'mallory' },
        { id: 2, body: body.replace('sha256=', 'sha256=0').replace(/sha256=0(.{63})./, 'sha256=0$1'), author: 'baton[bot]' },
        { id: 3, body, author: 'baton[bot]' },
      ],
      'baton[bot]',
    );
    expect(found.records.map((r) => r.commentId)).toEqual([3]);
    expect(found.ignored.map((i) => i.commentId)).toEqual([1, 2]);
  });
});
