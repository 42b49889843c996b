// Actions-only mode and bots: GitHub gives a bot no repository permission (the permission
// API answers 404), so a `/baton <workflow>` from a bot starts a run only when the
// workflow lists it in `on.bots` — the same rule as the App's, through baton.yml.
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const HELLO = `name: hello
on: { commands: [hello], bots: ["renovate[bot]"] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

describe('Actions-only mode: bots', () => {
  it('a listed bot starts the workflow; an unlisted one (Copilot) does not', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/hello.yml': HELLO }, agentScript: [] });
    h.emu.store.user('Copilot', 'Bot');
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Deps', body: '' })).data;
    const records = async () => (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: issue.number })).data.filter((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'));

    await h.as('Copilot').rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton hello' });
    await h.settle();
    expect(await records()).toEqual([]);

    await h.as('renovate[bot]').rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton hello' });
    await h.settle();
    const found = await records();
    expect(found).toHaveLength(1);
    expect(found[0]!.body).toContain(`run \`hello-${issue.number}-1\` — succeeded`);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});
