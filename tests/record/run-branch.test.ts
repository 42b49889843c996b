// A run writes and merges only into its own branch, `baton/<run id>`: a record whose state
// names another branch (another run's, or one outside baton/) is not a run of baton's —
// whoever made it could steer this run's merges into that branch.
import { describe, expect, it } from 'vitest';
import { emptyState, type RunState } from '../../src/engine/index.ts';
import { findRecords } from '../../src/record/find.ts';
import { RECORD_MARKER } from '../../src/record/render.ts';
import { writeStateBlock } from '../../src/record/state-block.ts';

const record = (state: RunState, id = 1) => ({ id, author: 'baton[bot]', body: `${RECORD_MARKER}\n### run\n${writeStateBlock(state)}` });
const running = (runId: string, runBranch: string): RunState => ({ ...emptyState(), runId, runBranch, status: 'running' });

describe('the run branch of a loaded state', () => {
  it('is exactly baton/<its own run id>', () => {
    const found = findRecords([record(running('ship-3-1', 'baton/ship-3-1'))], 'baton[bot]');
    expect(found.records.map((r) => r.state.runId)).toEqual(['ship-3-1']);
    expect(found.ignored).toEqual([]);
  });

  it.each([
    ['another run\'s branch', 'baton/ship-4-1'],
    ['a step branch of its own', 'baton/ship-3-1/build'],
    ['a branch outside baton/', 'main'],
    ['no branch, for a running run', ''],
  ])('refuses %s', (_what, branch) => {
    const found = findRecords([record(running('ship-3-1', branch))], 'baton[bot]');
    expect(found.records).toEqual([]);
    expect(found.ignored).toEqual([{ commentId: 1, author: 'baton[bot]', problem: `its run branch ${JSON.stringify(branch)} is not baton/ship-3-1, the branch of run ship-3-1` }]);
  });
});
