// Actions-only meets GitHub's workflow-file rule: a job's GITHUB_TOKEN can never have the
// `workflows` permission, so once main changes its `.github/workflows/` while a run waits on a
// question, every ref still carrying the old workflow files is refused to it (a new ref is
// compared with the default branch's tip; a moved ref, by one reading, too). The answer must
// still move the run on to its pull request, under each reading (tests/emulator/readings.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES } from '../emulator/readings.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const WAIT = `name: wait
on: { labels: ["baton:wait"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: a, agent: coder, prompt: "a" }
  - id: ask
    ask: { questions: ["Go on?"] }
  - { id: b, agent: coder, prompt: "b" }
  - id: pr
    pull-request: { title: "Wait for #\${{ issue.number }}" }
`;
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
    // A maintainer adds CI to main meanwhile (a person's push may write workflow files).
    const lint = Buffer.from('name: lint\non: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n').toString('base64');
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: '.github/workflows/lint.yml', message: 'Add lint', content: lint });
    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: 'Yes, go on.' });
    await h.settle();
    expect(await record()).toContain(`run \`wait-${issue.number}-1\` — succeeded`);
    const [pr] = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pr?.head.ref).toBe(`baton/wait-${issue.number}-1`);
    // The PR's diff is the run's own work: main's new workflow is not in it.
    const diff = await alice.rest.repos.compareCommitsWithBasehead({ ...o, basehead: `main...${pr!.head.ref}` });
    expect((diff.data.files ?? []).map((f) => f.filename).sort()).toEqual(['a.txt', 'b.txt']);
    h.emu.assertNoViolations();
  }, 120_000);
});
