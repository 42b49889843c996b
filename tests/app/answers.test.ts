// An answer is a comment that replies to the question: a quote-reply of baton's question
// comment, or one that starts with `/baton answer` (src/hosts/github/questions.ts). Anything
// else a maintainer writes in the thread of a waiting run — "1. we should also …" about
// something else — is no answer: the run keeps waiting and the App writes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { quoteReply } from '../emulator/quote-reply.ts';
import { appRequests, startHarness, type Harness } from './harness.ts';

const ASK = `name: ask
on: { labels: ["baton:ask"], commands: [ask] }
steps:
  - id: clarify
    ask: { questions: ["Which file?", "What text?"] }
  - id: write
    env: { FILE: "\${{ steps.clarify.outputs.answers[0] }}", TEXT: "\${{ steps.clarify.outputs.answers[1] }}" }
    run: printf '%s' "$TEXT" > "$FILE"
`;

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** alice labels an issue; the run waits at its two questions. */
async function waitingRun(harness: Harness): Promise<{ number: number; runId: string }> {
  const issue = (await harness.as('alice').rest.issues.create({ ...o, title: 'Ask', body: '' })).data;
  await harness.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
  await harness.settle();
  expect(await harness.record(issue.number)).toMatch(/\| ❓ \| clarify \| waiting for answers \(0 of 2\)/);
  return { number: issue.number, runId: `ask-${issue.number}-1` };
}

async function say(harness: Harness, number: number, body: string): Promise<void> {
  await harness.as('alice').rest.issues.createComment({ ...o, issue_number: number, body });
  await harness.settle();
}

/** The App's writes to the repository from the `from`-th request of the log on. */
const writesSince = (harness: Harness, from: number) =>
  appRequests(harness.emu)
    .slice(from)
    .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.route.includes(' /repos/'))
    .map((r) => r.route);

async function fileOnRunBranch(harness: Harness, runId: string, path: string): Promise<string> {
  const head = (await harness.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
  const file = (await harness.as('alice').rest.repos.getContent({ ...o, path, ref: head })).data as { content?: string };
  return Buffer.from(file.content ?? '', 'base64').toString();
}

describe('app: what answers a question', () => {
  it("does not take a maintainer's plain numbered comment as answers: the run keeps waiting and nothing is written", async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number } = await waitingRun(h);
    const record = await h.record(number);
    const from = appRequests(h.emu).length;
    await say(h, number, '1. we should also look at the lexer\n2. and ask the docs team');
    await say(h, number, 'notes.txt');
    expect(writesSince(h, from)).toEqual([]);
    expect(await h.record(number)).toBe(record);
  }, 60_000);

  it('takes a quote-reply of the question, then a /baton answer comment for the question left, and goes on with both', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number, runId } = await waitingRun(h);
    const question = (await h.comments(number)).find((b) => b.includes('<!-- baton:questions '))!;
    expect(question).toContain('quote-reply this comment');
    expect(question).toContain('`/baton answer`');

    await say(h, number, quoteReply(question, '1. notes.txt'));
    expect(await h.record(number)).toMatch(/\| ❓ \| clarify \| waiting for answers \(1 of 2\)/);
    await say(h, number, '/baton answer\n2. Hello from the thread.');
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    expect(await h.record(number)).toMatch(/\| ✅ \| clarify \| answered by @alice/);
    expect(await fileOnRunBranch(h, runId, 'notes.txt')).toBe('Hello from the thread.');
    h.emu.assertNoViolations();
  }, 60_000);

  it('tells whoever writes `/baton answer` with nothing open why nothing was answered', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number, runId } = await waitingRun(h);
    await say(h, number, `/baton answer ${runId}\n1. notes.txt\n2. Hi.`);
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    await say(h, number, `/baton answer ${runId} again`);
    expect((await h.comments(number)).at(-1)).toContain(`@alice, run \`${runId}\` has no open question: nothing was answered.`);
  }, 60_000);
});
