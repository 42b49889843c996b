// A review step on someone else's pull request, on the emulator: a maintainer labels bob's PR,
// the run reviews it and posts one review there — with the event the step's `verdicts` allow,
// inline comments and a suggested change — and the step is green only once GitHub has it.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type AgentScript, type Harness } from './harness.ts';

const REVIEW = `name: review
on: { labels: ["baton:review"], commands: [review] }
agents:
  reviewer: { uses: codex }
steps:
  - id: review
    review: { agent: reviewer, verdicts: [approve, request-changes] }
`;

// The suggestion is agent output: backticks that would close a shorter fence, a mention, markup.
const HOSTILE = 'const b = 2;\n````\n@alice **pinged**\n````';

const AGENTS: AgentScript = {
  'review/review': [
    {
      output: {
        approved: false,
        summary: 'Two things to change. cc @acme/security-team',
        comments: [
          { path: 'src/app.txt', line: 3, start_line: 2, body: 'Use constants here, @carol.', suggestion: HOSTILE },
          { path: 'src/app.txt', line: 1, body: 'Fine, but name it.' },
          { body: 'Add a changelog line.' },
        ],
      },
    },
  ],
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

/** A pull request by `author` adding src/app.txt (five lines) from branch `feature`; returns its number. */
async function pullBy(h: Harness, author: string): Promise<number> {
  const as = h.as(author);
  const main = (await as.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await as.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: main });
  const content = Buffer.from('one\ntwo\nthree\nfour\nfive\n').toString('base64');
  await as.rest.repos.createOrUpdateFileContents({ ...o, path: 'src/app.txt', branch: 'feature', message: 'Add app', content });
  return (await as.rest.pulls.create({ ...o, title: 'Add the app', head: 'feature', base: 'main', body: 'Please review.' })).data.number;
}

async function labelPull(h: Harness, pull: number): Promise<void> {
  await h.as('alice').rest.issues.addLabels({ ...o, issue_number: pull, labels: ['baton:review'] });
  await h.settle();
}

const stateOf = (h: Harness, runId: string) => h.runState(runId);

describe('app: a review step on a pull request the run did not open', () => {
  it("posts one review on bob's PR, requesting changes, with inline comments and a suggested change; the step is green once GitHub has it", async () => {
    h = await startHarness({ files: { '.agents/workflows/review.yml': REVIEW }, agents: AGENTS, roles: { alice: 'admin', bob: 'write' } });
    const pull = await pullBy(h, 'bob');
    await labelPull(h, pull);
    const runId = `review-${pull}-1`;

    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data;
    expect(reviews).toHaveLength(1);
    const review = reviews[0]!;
    expect(review).toMatchObject({ state: 'CHANGES_REQUESTED', user: { login: 'baton[bot]' } });
    // What was looked at, and the comment that is on no line, are in the body.
    expect(review.body).toContain('Two things to change.');
    // The agent's mentions are shown, inert: its text pages nobody from baton's bot.
    expect(review.body).toContain('cc @\u200Bacme/security-team');
    expect(review.body).not.toMatch(/@acme\/security-team/);
    expect(review.body).toMatch(/Reviewed commit [0-9a-f]{40}.*\(1 file changed\)/);
    expect(review.body).toContain('- Add a changelog line.');

    const comments = (await h.as('alice').rest.pulls.listReviewComments({ ...o, pull_number: pull })).data;
    expect(comments.map((c) => [c.path, c.start_line ?? null, c.line])).toEqual([
      ['src/app.txt', 2, 3],
      ['src/app.txt', null, 1],
    ]);
    // The suggestion's fence is longer than any run of backticks in it: nothing of it escapes the block.
    expect(comments[0]!.body).toBe(`Use constants here, @\u200Bcarol.\n\n\`\`\`\`\`suggestion\n${HOSTILE}\n\`\`\`\`\``);

    const state = await stateOf(h, runId);
    expect(state.status).toBe('succeeded');
    expect(state.steps[0]!.outputs).toMatchObject({ approved: false, event: 'REQUEST_CHANGES', url: review.html_url, summary: 'Two things to change. cc @acme/security-team' });
    expect(await h.record(pull)).toMatch(/\| ✅ \| review \|/);
    h.emu.assertNoViolations();
  }, 60_000);

  it("fails the step visibly, with GitHub's reason, when GitHub refuses the review (an approval of baton's own pull request)", async () => {
    const approving: AgentScript = { 'review/review': [{ output: { approved: true, summary: 'Looks right.', comments: [] } }] };
    h = await startHarness({ files: { '.agents/workflows/review.yml': REVIEW }, agents: approving, roles: { alice: 'admin' } });
    // A pull request the App's bot opened (another run's): GitHub refuses its approval by that bot.
    const pull = await pullBy(h, 'baton[bot]');
    await labelPull(h, pull);
    const runId = `review-${pull}-1`;

    expect((await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data).toEqual([]);
    const state = await stateOf(h, runId);
    expect(state.status).toBe('failed');
    expect(state.steps[0]).toMatchObject({ status: 'failed', reason: expect.stringContaining('Can not approve your own pull request') });
    const record = await h.record(pull);
    expect(record).toMatch(/\| ❌ \| review \|/);
    expect(record).toContain('Can not approve your own pull request');
    const sha = (await h.as('alice').rest.pulls.get({ ...o, pull_number: pull })).data.base.sha;
    const checks = (await h.as('alice').rest.checks.listForRef({ ...o, ref: state.head || sha })).data.check_runs;
    expect(checks.find((c) => c.name.includes('review') && c.conclusion === 'failure')?.output.title).toContain('Can not approve your own pull request');
  }, 60_000);

  it('puts every comment in the review body when one is on a line outside the diff (GitHub refuses the whole review)', async () => {
    const outside: AgentScript = {
      'review/review': [
        {
          output: {
            approved: true,
            summary: 'Fine.',
            comments: [
              { path: 'src/app.txt', line: 2, body: 'Nice.', suggestion: 'TWO' },
              { path: 'README.md', line: 1, body: 'Mention the app here.' },
            ],
          },
        },
      ],
    };
    h = await startHarness({ files: { '.agents/workflows/review.yml': REVIEW }, agents: outside, roles: { alice: 'admin', bob: 'write' } });
    const pull = await pullBy(h, 'bob');
    await labelPull(h, pull);
    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data;
    expect(reviews.map((r) => r.state)).toEqual(['APPROVED']);
    expect(reviews[0]!.body).toContain('- `src/app.txt:2`: Nice.');
    expect(reviews[0]!.body).toContain('```text\n  TWO\n  ```');
    expect(reviews[0]!.body).toContain('- `README.md:1`: Mention the app here.');
    expect((await h.as('alice').rest.pulls.listReviewComments({ ...o, pull_number: pull })).data).toEqual([]);
    expect((await stateOf(h, `review-${pull}-1`)).status).toBe('succeeded');
  }, 60_000);

  // REST "Create a review for a pull request": without commit_id the review goes on the latest
  // commit and its lines are resolved there. bob pushes while the reviewer works, moving every
  // line of src/app.txt down by two.
  it('a pull request that moved while the reviewer worked: the review and its comments stay on the reviewed commit, outdated where the file changed', async () => {
    // Started by the pull request's opening: the run starts from its head, which the reviewer reads.
    const onOpened = REVIEW.replace('on: { labels: ["baton:review"], commands: [review] }', 'on: { pull_request: { types: [opened] } }');
    h = await startHarness({ files: { '.agents/workflows/review.yml': onOpened }, agents: AGENTS, roles: { alice: 'admin', bob: 'write' } });
    let pushed: Promise<unknown> | undefined;
    const stop = h.emu.webhooks.onEmit((d) => {
      if (pushed || d.event !== 'workflow_run' || (d.payload as { action?: string }).action !== 'requested') return;
      pushed = (async () => {
        const file = (await h!.as('bob').rest.repos.getContent({ ...o, path: 'src/app.txt', ref: 'feature' })).data as { sha: string };
        const content = Buffer.from('zero\nhalf\none\ntwo\nthree\nfour\nfive\n').toString('base64');
        await h!.as('bob').rest.repos.createOrUpdateFileContents({ ...o, path: 'src/app.txt', branch: 'feature', message: 'Two lines first', content, sha: file.sha });
      })();
    });
    const pull = await pullBy(h, 'bob');
    const reviewed = (await h.as('alice').rest.pulls.get({ ...o, pull_number: pull })).data.head.sha;
    await h.settle();
    await pushed;
    await h.settle();
    stop();
    const head = (await h.as('alice').rest.pulls.get({ ...o, pull_number: pull })).data.head.sha;
    expect(head).not.toBe(reviewed);

    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data;
    expect(reviews.map((r) => [r.state, r.commit_id])).toEqual([['CHANGES_REQUESTED', reviewed]]);
    expect(reviews[0]!.body).toContain(`Reviewed commit ${reviewed}; the pull request's head is now ${head}`);
    const comments = (await h.as('alice').rest.pulls.listReviewComments({ ...o, pull_number: pull })).data;
    expect(comments.map((c) => [c.original_commit_id, c.original_start_line ?? null, c.original_line, c.line ?? null])).toEqual([
      [reviewed, 2, 3, null],
      [reviewed, null, 1, null],
    ]);
  }, 60_000);
});
