// Green only with the deliverable, end to end on the emulator (App): entries of the fault corpus
// (tests/faults/corpus.ts) through the real App, worker workflow and fake agent CLIs. The run
// ends failed, and its status comment names the step and what is missing; nothing downstream
// (the pull request) happens on the agent's word.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const SHIP = `name: ship
on: { labels: ["baton:ship"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
    outputs: { type: object, required: [summary], properties: { summary: { type: string } } }
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('app: green only with the deliverable (fault corpus, end to end)', () => {
  it('an agent that exits 0 with valid outputs and no diff fails the run, the record naming what is missing; no pull request', async () => {
    h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP }, agents: { implement: [{ output: { summary: 'Fixed the crash.' } }] } });
    const n = await openLabelled(h, 'baton:ship');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`ship-${n}-1\` — failed`);
    expect(record).toContain('without changing any file');
    expect(record).toContain('no-changes: succeed');
    expect((await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
  });

  it('a result whose outputs are cut short fails the run, naming the schema; no pull request', async () => {
    h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP }, agents: { implement: [{ write: { 'src/fix.txt': 'half\n' }, output: {} }] } });
    const n = await openLabelled(h, 'baton:ship');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`ship-${n}-1\` — failed`);
    // The worker re-prompts the agent for a valid result first; then it gives up, saying why.
    expect(record).toContain("the result does not match the step's outputs schema");
    expect(record).toContain('missing the required property `summary`');
    expect((await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
  });

  it('a writing step that ends green has its commit on the run branch and the pull request at that head', async () => {
    h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP }, agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' }, output: { summary: 'Fixed.' } }] } });
    const n = await openLabelled(h, 'baton:ship');
    await h.settle();
    expect(await h.record(n)).toContain(`run \`ship-${n}-1\` — succeeded`);
    const pulls = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pulls).toHaveLength(1);
    const branch = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/ship-${n}-1` })).data.object.sha;
    expect(pulls[0]!.head.sha).toBe(branch);
    const file = (await h.as('alice').rest.repos.getContent({ ...o, path: 'src/fix.txt', ref: branch })).data as { content?: string };
    expect(Buffer.from(file.content ?? '', 'base64').toString()).toBe('fixed\n');
  });
});
