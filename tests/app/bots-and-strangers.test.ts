// Who may start a run, as GitHub answers the collaborator permission API: bots (apps,
// `Copilot`) have no permission there (404) and start a workflow only when it lists
// them in `on.bots`; on a public repository everyone reads, and `read` is not enough for
// a workflow that needs more.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const HELLO = `name: hello
on: { commands: [hello], bots: ["renovate[bot]"] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;
const OTHER = `name: other
on: { commands: [other] }
steps:
  - id: greet
    run: echo hi > other.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

describe('app: bots and strangers', () => {
  it('a bot starts a workflow only when listed in on.bots; others are ignored without a reply', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO, '.agents/workflows/other.yml': OTHER } });
    h.emu.store.user('Copilot', 'Bot');
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Deps', body: '' })).data;
    const say = async (login: string, body: string) => {
      await h!.as(login).rest.issues.createComment({ ...o, issue_number: issue.number, body });
      await h!.settle();
    };

    await say('renovate[bot]', '/baton other');
    await say('Copilot', '/baton hello');
    expect(h.runner.store.runs.size).toBe(0);
    expect((await h.comments(issue.number)).filter((b) => !b.startsWith('/baton'))).toEqual([]);

    await say('renovate[bot]', '/baton hello');
    const records = (await h.comments(issue.number)).filter((b) => b.includes('baton:record'));
    expect(records).toHaveLength(1);
    expect(records[0]).toContain(`run \`hello-${issue.number}-1\` — succeeded`);
    expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton hello-${issue.number}-1 greet #1`]);
    h.emu.assertNoViolations();
  }, 40_000);

  it('on a public repository a non-collaborator reads, and is refused a workflow that needs write', async () => {
    h = await startHarness({ files: { '.agents/workflows/other.yml': OTHER } });
    h.emu.store.setVisibility('acme', 'widgets', 'public');
    const issue = (await h.as('eve').rest.issues.create({ ...o, title: 'Please run', body: '' })).data;
    await h.as('eve').rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton other' });
    await h.settle();
    expect((await h.comments(issue.number)).some((b) => b.includes('@eve, starting `other` needs `write` permission (or higher); yours is `read`'))).toBe(true);
    expect(h.runner.store.runs.size).toBe(0);
    h.emu.assertNoViolations();
  }, 40_000);
});
