// Comment commands and bad input: roles, 👀, usage with "did you mean", a broken
// manifest answered with file:line and a failed check, a duplicated delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, startHarness, type Harness } from './harness.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"], commands: [hello], roles: [maintain] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;
const BROKEN = `name: broken
on: { commands: [broken] }
steps:
  - id: a
    run: echo a
    needs: [nope]
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

describe('app: comment commands', () => {
  it('refuses a start from someone without the role (naming it), answers usage with did-you-mean, reports a broken manifest, ignores a duplicated delivery', async () => {
    h = await startHarness({
      files: { '.agents/workflows/hello.yml': HELLO, '.agents/workflows/broken.yml': BROKEN },
      roles: { alice: 'maintain', bob: 'write' },
    });
    const bob = h.as('bob');
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Hi', body: '' })).data;
    const comments = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.map((c) => c.body ?? '');

    // bob has write; the workflow needs maintain: nothing runs, the reply names the role.
    const asked = (await bob.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton hello' })).data;
    await h.settle();
    expect((await comments()).some((b) => b.includes('@bob, starting `hello` needs `maintain` permission (or higher); yours is `write`'))).toBe(true);
    expect(h.runner.store.runs.size).toBe(0);
    const reactions = (await alice.rest.reactions.listForIssueComment({ ...o, comment_id: asked.id })).data;
    expect(reactions.map((r) => r.content)).toContain('eyes');

    // A typo gets usage with the nearest command.
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton helo' });
    await h.settle();
    expect((await comments()).some((b) => b.includes('`/baton helo` is not a command here; did you mean `hello`?') && b.includes('/baton help'))).toBe(true);

    // A broken manifest: file:line in the thread and a failed check on the default branch.
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton broken' });
    await h.settle();
    const report = (await comments()).find((b) => b.includes('is not a valid workflow'));
    expect(report).toMatch(/\.agents\/workflows\/broken\.yml:6:\d+: /);
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const check = (await alice.rest.checks.listForRef({ ...o, ref: main })).data.check_runs.find((c) => c.name === 'baton / manifests');
    expect(check?.conclusion).toBe('failure');

    // help lists the workflows.
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton help' });
    await h.settle();
    expect((await comments()).some((b) => b.includes('**Workflows of this repository**') && b.includes('`/baton hello`'))).toBe(true);

    // alice may start it; the same delivery again changes nothing.
    h.emu.faults.addWebhook({ kind: 'duplicate', event: 'issue_comment.created' });
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton hello' });
    await h.settle();
    const before = appRequests(h.emu).length;
    const delivery = h.emu.webhooks.deliveries.filter((d) => d.event === 'issue_comment' && d.action === 'created').at(-1)!;
    await h.emu.webhooks.redeliver(delivery.id);
    await h.settle();
    const after = appRequests(h.emu).slice(before);
    expect(after.filter((r) => r.method !== 'GET')).toEqual([]);
    const records = (await comments()).filter((b) => b.includes('baton:record'));
    expect(records).toHaveLength(1);
    expect(records[0]).toContain('— succeeded');
    expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton hello-${issue.number}-1 greet #1`]);
    h.emu.assertNoViolations();
  }, 40_000);
});
