// A `label` step in a local run: there is no issue to label, so nothing is added, the run goes
// on, and the step's row says which labels it was asked for.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

const TAG = `name: tag
steps:
  - id: pick
    writes: false
    run: echo '{"labels":["bug","docs","bug"]}' > "$BATON_OUTPUT"
  - id: apply
    label:
      add: \${{ steps.pick.outputs.labels }}
      labels: [bug, docs]
`;

describe('local label step', { timeout: 90_000 }, () => {
  it('adds nothing, says why and what was asked for, and the run succeeds', async () => {
    repo = makeRepo();
    writeFile(join(repo.dir, '.agents/workflows/tag.yml'), TAG);
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'tag workflow');
    const result = await baton(repo, ['run', 'tag', '--local']);
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse((await baton(repo, ['status', 'tag-1', '--json'])).stdout);
    expect(status.status).toBe('succeeded');
    const apply = status.steps.find((s: { id: string }) => s.id === 'apply');
    expect(apply).toMatchObject({ status: 'succeeded', outputs: { applied: [], unknown: [] } });
    const record = readFileSync(join(repo.dir, '.baton/runs/tag-1/record.md'), 'utf8');
    expect(record).toContain('not added: a local run has no issue to label (asked for `bug`, `docs`)');
    expect(events(repo, 'tag-1').filter((e) => e.type === 'labels.applied')).toHaveLength(1);
  });
});
