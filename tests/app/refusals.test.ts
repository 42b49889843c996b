// Writes GitHub refuses end a step attempt with a message in the record, never an
// exception out of every later delivery: an agent that edits a workflow file (the App has
// no `workflows` permission, as app.yml asks for none), and a draft PR in a private
// repository on the Free plan (baton opens it ready for review and says why). A result
// baton or GitHub refuses reads as refused, not as a crash, with a remedy that works for
// the App: `protected-paths: allow` does not let it write workflow files.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../emulator/emulator.ts';
import { READING_VALUES, type Readings } from '../emulator/readings.ts';
import { type Harness, openLabelled, startHarness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CI_EDIT = `name: ci-edit
on: { labels: ["baton:ci"] }
agents: { coder: { uses: claude-code } }
steps:
  # Opted in to protected paths: what is tested is GitHub's own refusal of workflow files.
  - { id: edit, agent: coder, prompt: "add a workflow", retries: 0, protected-paths: allow }
  - id: pr
    pull-request: { title: "CI for #\${{ issue.number }}" }
`;

const DRAFT = `name: drafty
on: { labels: ["baton:draft"] }
steps:
  - id: greet
    run: echo "hello" > hello.txt
  - id: pr
    pull-request: { title: "Hello for #\${{ issue.number }}", draft: true }
`;

const ASK = `name: asky
on: { labels: ["baton:ask"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: a, agent: coder, writes: false, prompt: "ask a long question", outputs: { type: object, required: [q], properties: { q: { type: string } } } }
  - id: ask
    ask: { questions: ["\${{ steps.a.outputs.q }}"] }
`;


/** Deliveries the app did not take (an exception answers 500): none, or the run would wedge. */
function failedDeliveries(emu: Emulator) {
  return emu.webhooks.deliveries.filter((d) => !d.dropped && (d.error !== undefined || (d.status ?? 200) >= 300)).map((d) => `${d.event}.${d.action ?? ''} ${d.status ?? d.error}`);
}

/** The completed check runs of step `step` on the default branch's commit (where a run that merged nothing has its head). */
async function stepChecks(step: string): Promise<{ conclusion: string | null; title: string | null | undefined }[]> {
  const main = (await h!.as('alice').rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  const runs = (await h!.as('alice').rest.checks.listForRef({ ...o, ref: main })).data.check_runs;
  return runs.filter((c) => c.name.endsWith(` / ${step}`) && c.status === 'completed').map((c) => ({ conclusion: c.conclusion, title: c.output.title }));
}

/** GitHub's answer to the workflow-file change under each reading of where it refuses it (readings.ts). */
const ANSWER: Record<Readings['workflowRefusalAt'], string> = {
  trees: '403 Resource not accessible by integration',
  commits: '404 Not Found',
  ref: '422 Reference update failed',
};

describe.each(READING_VALUES.workflowRefusalAt)('app: GitHub refuses a workflow file at %s (readings.ts)', (at) => {
  it('records the attempt of a step with `protected-paths: allow` that writes .github/workflows/x.yml as refused, naming the file, the answer and the remedy', async () => {
    h = await startHarness({
      files: { '.agents/workflows/ci-edit.yml': CI_EDIT },
      agents: { edit: [{ write: { '.github/workflows/x.yml': 'on: push\njobs: {}\n', 'src/ok.txt': 'fine\n' } }] },
      readings: { workflowRefusalAt: at },
    });
    const n = await openLabelled(h, 'baton:ci');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`ci-edit-${n}-1\` — failed`);
    const refusal = `refused after 1 attempt: GitHub refused to write .github/workflows/x.yml (${ANSWER[at]}): GitHub writes workflow files only for a token with the \`workflows\` permission: grant it to the baton App`;
    expect(record).toContain(refusal);
    expect(record).not.toContain('crashed');
    expect(await stepChecks('edit')).toEqual([{ conclusion: 'failure', title: expect.stringContaining(refusal) }]);
    expect(failedDeliveries(h.emu)).toEqual([]);
    // Nothing of the attempt reached the run branch, and no PR was opened.
    expect((await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});

describe('app: results baton refuses', () => {
  it('records a result that adds .github/workflows/evil.yml without `protected-paths: allow` as refused, not crashed, with what the App needs beyond the key', async () => {
    const EVIL = CI_EDIT.replace(', protected-paths: allow }', ' }');
    h = await startHarness({ files: { '.agents/workflows/ci-edit.yml': EVIL }, agents: { edit: [{ write: { '.github/workflows/evil.yml': 'on: push\njobs: {}\n' } }] } });
    const n = await openLabelled(h, 'baton:ci');
    await h.settle();
    const record = await h.record(n);
    const refusal =
      "refused after 1 attempt: the worker's result changes protected paths: .github/workflows/evil.yml (a GitHub Actions workflow). These steer later workflows and agents, so baton does not write them unless the step lists them in `protected-paths` (or sets `protected-paths: allow`); " +
      'for the workflow files that is not enough: GitHub writes workflow files only for a token with the `workflows` permission: grant it to the baton App';
    expect(record).toContain(refusal);
    expect(record).not.toContain('crashed');
    expect(await stepChecks('edit')).toEqual([{ conclusion: 'failure', title: expect.stringContaining(refusal) }]);
    expect(failedDeliveries(h.emu)).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});

describe('app: writes GitHub refuses', () => {
  it('cuts a question comment longer than GitHub allows, keeping its marker, and waits for answers', async () => {
    // 65,466 characters of question (an output under 65,535 bytes): with the thread's formatting, over GitHub's 65,536 for a comment.
    h = await startHarness({ files: { '.agents/workflows/asky.yml': ASK }, agents: { a: [{ output: { q: `Which of these? ${'x'.repeat(65_450)}` } }] } });
    const n = await openLabelled(h, 'baton:ask');
    await h.settle();
    const comments = await h.comments(n);
    const question = comments.find((c) => c.includes('<!-- baton:questions '));
    expect(question).toContain("cut to GitHub's limit of 65536 characters for a comment");
    expect(question!.length).toBeLessThanOrEqual(65_536);
    expect(await h.record(n)).toContain('waiting for answers (0 of 1)');
    expect(failedDeliveries(h.emu)).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('opens a ready PR where drafts are refused (private repository, Free plan), and says so in the record', async () => {
    h = await startHarness({ files: { '.agents/workflows/drafty.yml': DRAFT }, repo: { visibility: 'private', plan: 'free' } });
    const n = await openLabelled(h, 'baton:draft');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`drafty-${n}-1\` — succeeded`);
    expect(record).toContain('opened ready for review, not as a draft: GitHub does not support draft pull requests in this repository');
    const pulls = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pulls.map((p) => ({ head: p.head.ref, draft: p.draft }))).toEqual([{ head: `baton/drafty-${n}-1`, draft: false }]);
    expect(failedDeliveries(h.emu)).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});
