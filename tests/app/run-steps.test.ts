// Slice 1: a label on an issue with a workflow of `run` steps → run branch, worker jobs
// in Actions, results applied with the Git Data API, merged, a PR, the status comment.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, startHarness, type Harness } from './harness.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"], commands: [hello] }
steps:
  - id: greet
    run: echo "hello from baton" > hello.txt
  - id: more
    run: echo "more" > more.txt
  - id: pr
    pull-request: { title: "Hello for #\${{ issue.number }}", draft: true }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('app: run steps', () => {
  it('turns a labelled issue into a run branch, worker jobs, merges, a PR and a status comment', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    const alice = h.as('alice');
    const issue = await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Say hello', body: 'Please.' });
    await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue.data.number, labels: ['baton:hello'] });
    await h.settle();

    const comments = await alice.rest.issues.listComments({ owner: 'acme', repo: 'widgets', issue_number: issue.data.number });
    const record = comments.data.find((c) => c.user?.login === 'baton[bot]' && c.body?.includes('baton:record'));
    expect(record?.body).toContain(`run \`hello-${issue.data.number}-1\` — succeeded`);
    const git = h.emu.git('acme', 'widgets');
    const head = await alice.rest.git.getRef({ owner: 'acme', repo: 'widgets', ref: `heads/baton/hello-${issue.data.number}-1` });
    const files = await alice.rest.repos.getContent({ owner: 'acme', repo: 'widgets', path: 'more.txt', ref: head.data.object.sha });
    expect(Buffer.from((files.data as { content: string }).content, 'base64').toString()).toBe('more\n');
    const pulls = await alice.rest.pulls.list({ owner: 'acme', repo: 'widgets', state: 'open' });
    expect(pulls.data).toHaveLength(1);
    expect(pulls.data[0]!.head.ref).toBe(`baton/hello-${issue.data.number}-1`);
    const checks = await alice.rest.checks.listForRef({ owner: 'acme', repo: 'widgets', ref: head.data.object.sha });
    expect(checks.data.check_runs.find((c) => c.name === 'baton / hello')?.conclusion).toBe('success');
    void git;
    const dispatches = appRequests(h.emu).filter((r) => r.route.endsWith('/dispatches'));
    expect(dispatches).toHaveLength(2);
    h.emu.assertNoViolations();
    expect(h.runner.errors).toEqual([]);
  }, 30_000);
});
