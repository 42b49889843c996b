// A record's layout is part of its trust rule: its marker on the first line, exactly one state
// block, on the last; a `baton:…` marker counts only as the last line of a comment of baton's
// bot. Text quoted above them is inert, but these rules hold even if it were not.
import { describe, expect, it } from 'vitest';
import { findRecords } from '../../src/record/find.ts';
import { RECORD_MARKER } from '../../src/record/render.ts';
import { readStateBlock, writeStateBlock } from '../../src/record/state-block.ts';
import { markersOf } from '../../src/hosts/github/thread.ts';
import { emptyState } from '../../src/engine/state.ts';

const state = { ...emptyState(), runId: 'r-1-1', runBranch: 'baton/r-1-1' };
const block = writeStateBlock(state, 'k');
const bot = 'baton[bot]';

describe('the record layout', () => {
  it('reads the one block on the last line', () => {
    expect(readStateBlock(`${RECORD_MARKER}\ntext\n${block}\n`, 'k')).toMatchObject({ ok: true });
  });

  it('carries the lease generation under the hash: read back, and an edited generation is refused', () => {
    const withGen = writeStateBlock(state, 'k', 7);
    expect(readStateBlock(`${RECORD_MARKER}\n${withGen}`, 'k')).toMatchObject({ ok: true, gen: 7 });
    expect(readStateBlock(`${RECORD_MARKER}\n${block}`, 'k')).toMatchObject({ ok: true, gen: 0 });
    // Someone who can edit the comment moves the generation back (to make a stale claim win): refused.
    const edited = withGen.replace('gen=7 ', 'gen=6 ');
    expect(readStateBlock(`${RECORD_MARKER}\n${edited}`, 'k')).toMatchObject({ ok: false, problem: expect.stringContaining('edited') });
  });

  it('refuses a second block, wherever it stands', () => {
    expect(readStateBlock(`${RECORD_MARKER}\n${block}\n${block}`, 'k')).toMatchObject({ ok: false, problem: expect.stringContaining('2 state blocks') });
  });

  it('refuses a block that is not the last line', () => {
    expect(readStateBlock(`${RECORD_MARKER}\n${block}\nmore text`, 'k')).toMatchObject({ ok: false, problem: expect.stringContaining('not the last line') });
  });

  it('trusts no comment of baton\'s whose first line is not the record marker', () => {
    const comments = [{ id: 1, author: bot, body: `a reply quoting\n${RECORD_MARKER}\n${block}` }];
    const read = findRecords(comments, bot, 'k');
    expect(read.records).toEqual([]);
    expect(read.ignored).toEqual([expect.objectContaining({ commentId: 1, problem: expect.stringContaining('first line') })]);
  });

  it('counts a marker only as the last line of a comment of baton\'s bot', () => {
    const comments = [
      { id: 1, author: bot, body: 'Questions\n<!-- baton:questions r-1-1/ask/questions/1 -->' },
      { id: 2, author: bot, body: 'quoted: <!-- baton:questions r-1-2/ask/questions/1 -->\nand more' },
      { id: 3, author: 'mallory', body: 'x\n<!-- baton:questions r-1-3/ask/questions/1 -->' },
    ];
    expect([...markersOf(comments, bot)]).toEqual(['baton:questions r-1-1/ask/questions/1']);
  });
});
