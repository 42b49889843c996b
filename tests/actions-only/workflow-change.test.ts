// Actions-only meets GitHub's workflow-file rule: a job's GITHUB_TOKEN can never have the
// `workflows` permission, so once main changes its `.github/workflows/` while a run waits on a
// question, every ref still carrying the old workflow files is refused to it (a new ref is
// compared with the default branch's tip; a moved ref, by one reading, too). The answer must
// still move the run on to its pull request, under each reading (tests/emulator/readings.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES } from '../emulator/readings.ts';
import { addLintWorkflowToMain, prFiles, WAIT } from '../app/stories.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Actions-only: the default branch changes its workflow files while a run waits', () => {
  it.each(READING_VALUES.refUpdateWorkflows)('goes on when answered and ends in a pull request (ref updates compared with: %s)', async (reading) => {
    h = await startActionsOnly({
      init: ['--mode', 'actions'],
      files: { '.agents/workflows/wait.yml': WAIT },
      agentScript: [{ write: { 'a.txt': 'a\n' }, reply: { done: true } }, { write: { 'b.txt': 'b\n' }, reply: { done: true } }],
      readings: { refUpdateWorkflows: reading },
    });
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Wait', body: '', labels: ['baton:wait'] })).data;
    const record = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    await h.settle();
    expect(await record()).toContain('waiting for answers');
    await addLintWorkflowToMain(alice);
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton answer Yes, go on.' });
    await h.settle();
    expect(await record()).toContain(`run \`wait-${issue.number}-1\` — succeeded`);
    const [pr] = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pr?.head.ref).toBe(`baton/wait-${issue.number}-1`);
    // The PR's diff is the run's own work: main's new workflow is not in it.
    expect(await prFiles(alice, pr!.head.ref)).toEqual(['a.txt', 'b.txt']);
    h.emu.assertNoViolations();
  }, 120_000);
});
