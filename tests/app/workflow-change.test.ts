// GitHub's workflow-file rule meets a run that waits: the default branch changes its
// `.github/workflows/` while a run waits on a question. The App has no `workflows` permission,
// so every ref that still carries the old workflow files is refused from then on (a new ref is
// compared with the default branch's tip; a moved ref, by one reading, too). The run must still
// go on when the question is answered, and end in a pull request — under each reading of what
// a ref update is compared with (tests/emulator/readings.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES } from '../emulator/readings.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';

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

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('app: the default branch changes its workflow files while a run waits', () => {
  it.each(READING_VALUES.refUpdateWorkflows)('goes on when answered and ends in a pull request (ref updates compared with: %s)', async (reading) => {
    h = await startHarness({
      files: { '.agents/workflows/wait.yml': WAIT },
      agents: { a: [{ write: { 'a.txt': 'a\n' } }], b: [{ write: { 'b.txt': 'b\n' } }] },
      readings: { refUpdateWorkflows: reading },
    });
    const alice = h.as('alice');
    const n = await openLabelled(h, 'baton:wait');
    await h.settle();
    expect(await h.record(n)).toContain('waiting for answers');
    // A maintainer adds CI to main meanwhile (a person's push may write workflow files).
    const lint = Buffer.from('name: lint\non: push\njobs: { lint: { runs-on: ubuntu-latest, steps: [ { run: "true" } ] } }\n').toString('base64');
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: '.github/workflows/lint.yml', message: 'Add lint', content: lint });
    await alice.rest.issues.createComment({ ...o, issue_number: n, body: 'Yes, go on.' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`wait-${n}-1\` — succeeded`);
    const [pr] = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pr?.head.ref).toBe(`baton/wait-${n}-1`);
    // Both steps' work is on the branch, and the PR's diff is the run's own: main's new workflow is not in it.
    const diff = await alice.rest.repos.compareCommitsWithBasehead({ ...o, basehead: `main...${pr!.head.ref}` });
    const files = (diff.data.files ?? []).map((f) => f.filename).sort();
    expect(files).toEqual(['a.txt', 'b.txt']);
    h.emu.assertNoViolations();
  }, 90_000);
});
