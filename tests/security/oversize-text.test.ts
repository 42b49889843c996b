// Attack: text at GitHub's own limit (a 65,000-character answer, a 65,000-character issue
// body) does not fit in baton's status comment, which must hold the run's state under the
// same limit: the answer was dropped with a failed delivery and no word, and the run of such
// an issue never started and nobody was told. Defence: such text is answered with a message
// (which limit, what to do), never a failed delivery or a silent drop; a run keeps its state.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_THREAD_TEXT_CHARS } from '../../src/app/too-long.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ASK = `name: asker
on: { labels: ["baton:ask"] }
steps:
  - id: clarify
    ask: { questions: ["Which part?"] }
  - id: use
    env: { PART: "\${{ steps.clarify.outputs.answers[0] }}" }
    run: printf '%s' "$PART" > part.txt
`;

const HELLO = `name: hello
on: { labels: ["baton:hello"], commands: [hello] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;

const big = (n: number): string => 'x'.repeat(n);

describe('text too large for the run record', () => {
  it('answers an oversize answer with the limit and keeps the run waiting; a shorter answer goes on', async () => {
    h = await startHarness({ files: { '.agents/workflows/asker.yml': ASK } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Ask me', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
    await h.settle();

    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: `/baton answer ${big(65_000)}` });
    await h.settle();
    const comments = await h.comments(issue.number);
    const told = comments.find((b) => b.startsWith('@alice, your answer is too long'));
    expect(told).toMatch(/too long for baton to keep \(65,000 characters; at most [\d,]+\)/);
    expect(told).toContain('shorter answer');
    expect(await h.record(issue.number)).toContain(`run \`asker-${issue.number}-1\` — running`);

    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton answer the parser' });
    await h.settle();
    expect(await h.record(issue.number)).toContain(`run \`asker-${issue.number}-1\` — succeeded`);
  }, 60_000);

  it('answers an issue whose body is too large to start a run from, naming the limit', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Huge', body: big(65_000) })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:hello'] });
    await h.settle();
    const comments = await h.comments(issue.number);
    expect(comments.find((b) => b.includes('too long'))).toMatch(/^@alice, the issue's title and body are too long for baton to keep \(65,004 characters; at most 20,000\).*Nothing was started\. Shorten the description/s);
    expect(h.runner.store.runs.size).toBe(0);

    // Someone without the role is refused as usual (the engine keeps no record of a refusal).
    await h.as('eve').rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton hello' });
    await h.settle();
    expect((await h.comments(issue.number)).some((b) => b.startsWith('@eve, starting `hello` needs `write` permission (or higher)'))).toBe(true);
    expect(h.runner.store.runs.size).toBe(0);

    // Just under the limit, the run starts and its record fits.
    const fits = (await alice.rest.issues.create({ ...o, title: 'Big', body: big(MAX_THREAD_TEXT_CHARS - 3) })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: fits.number, labels: ['baton:hello'] });
    await h.settle();
    expect(await h.record(fits.number)).toContain(`run \`hello-${fits.number}-1\` — succeeded`);
  }, 60_000);
});
