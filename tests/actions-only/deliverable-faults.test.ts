// Green only with the deliverable in Actions-only mode, end to end on the emulator: an entry of
// the fault corpus (tests/faults/corpus.ts) through the files `baton init --mode actions` wrote,
// the route/run/apply jobs and the fake agent CLIs. An agent that exits 0 with valid outputs
// and no diff fails the run; the record names what is missing, and no pull request is opened.
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const SHIP = `name: ship
on: { labels: ["baton:ship"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const o = { owner: 'acme', repo: 'widgets' };

describe('Actions-only: green only with the deliverable (fault corpus, end to end)', () => {
  it('an agent that exits 0 with no diff fails the run, the record naming what is missing; no pull request', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/ship.yml': SHIP }, agentScript: [{ reply: { done: true } }] });
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.', labels: ['baton:ship'] })).data;
    const record = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    await h.waitFor('the run to end', async () => /— (failed|succeeded)/.test(await record()));
    const text = await record();
    expect(text).toContain(`run \`ship-${issue.number}-1\` — failed`);
    expect(text).toContain('without changing any file');
    expect((await alice.rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
  });
});
