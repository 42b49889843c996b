// Actions-only mode: an answer is a comment that replies to the question — a quote-reply of
// baton's question comment, or one that starts with `/baton answer` — as with the App (one
// door: src/hosts/github/questions.ts). A maintainer's other comments in the thread of a
// waiting run change nothing: no answer taken, no comment written.
import { afterEach, describe, expect, it } from 'vitest';
import { quoteReply } from '../emulator/quote-reply.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const ASK = `name: asky
on: { labels: ["baton:ask"] }
steps:
  - id: clarify
    ask: { questions: ["Which file?", "What text?"] }
  - id: write
    env: { FILE: "\${{ steps.clarify.outputs.answers[0] }}", TEXT: "\${{ steps.clarify.outputs.answers[1] }}" }
    run: printf '%s' "$TEXT" > "$FILE"
`;

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const comments = async (n: number) => (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n, per_page: 100 })).data;
const record = async (n: number) => (await comments(n)).find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';

async function say(n: number, body: string): Promise<void> {
  await h!.as('alice').rest.issues.createComment({ ...o, issue_number: n, body });
  await h!.settle();
}

describe('Actions-only mode: what answers a question', () => {
  it("takes a quote-reply and a /baton answer comment, and not a maintainer's plain numbered comment", async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/asky.yml': ASK }, agentScript: [] });
    const n = (await h.as('alice').rest.issues.create({ ...o, title: 'Ask', body: 'Please.', labels: ['baton:ask'] })).data.number;
    await h.settle();
    const waiting = await record(n);
    expect(waiting).toMatch(/clarify \| waiting for answers \(0 of 2\)/);
    const question = (await comments(n)).find((c) => c.body?.includes('<!-- baton:questions '))!.body!;
    expect(question).toContain('quote-reply this comment');

    const before = (await comments(n)).length;
    await say(n, '1. we should also look at the lexer\n2. and ask the docs team');
    expect(await record(n)).toBe(waiting);
    expect((await comments(n)).length).toBe(before + 1); // hers, and nothing from baton

    await say(n, quoteReply(question, '1. notes.txt'));
    expect(await record(n)).toMatch(/clarify \| waiting for answers \(1 of 2\)/);
    await say(n, '/baton answer\n2. Hello from the thread.');
    const done = await record(n);
    expect(done).toContain('succeeded');
    expect(done).toMatch(/clarify \| answered by @alice/);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/asky-${n}-1` })).data.object.sha;
    const file = (await h.as('alice').rest.repos.getContent({ ...o, path: 'notes.txt', ref: head })).data as { content?: string };
    expect(Buffer.from(file.content ?? '', 'base64').toString()).toBe('Hello from the thread.');
  }, 90_000);
});
