// Attack: someone without a role comments thirty times and costs baton thirty replies (GitHub
// counts them against the App's content-creation limits, and the thread drowns). Defence:
// a person without a role gets at most REPLIES_PER_STRANGER_PER_HOUR replies per thread and
// hour, counted from baton's own replies on GitHub (so a restart forgets nothing); then the
// 👀 reaction is all they get. People with a role are answered as before.
import { afterEach, describe, expect, it } from 'vitest';
import { WRITES_PER_STRANGER_PER_HOUR as REPLIES_PER_STRANGER_PER_HOUR } from '../../src/hosts/github/stranger-door.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const OTHER = `name: other
on: { commands: [other] }
steps:
  - id: greet
    run: echo hi > other.txt
`;

const ASK = `name: asker
on: { labels: ["baton:ask"] }
steps:
  - id: clarify
    ask: { questions: ["Which part?"] }
`;

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('replies to people without a role', () => {
  it(`answers a stranger's 30 comments at most ${REPLIES_PER_STRANGER_PER_HOUR} times, across a restart, and still answers a maintainer`, async () => {
    h = await startHarness({ files: { '.agents/workflows/other.yml': OTHER } });
    h.emu.store.setVisibility('acme', 'widgets', 'public');
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Run it', body: '' })).data;
    const kinds = ['/baton other', '/baton help', '/baton cancel', '/baton nope', '/baton approve'];
    const eve = h.as('eve');
    for (let i = 0; i < 30; i++) {
      await eve.rest.issues.createComment({ ...o, issue_number: issue.number, body: kinds[i % kinds.length]! });
      await h.settle();
      if (i === 14) await h.restart();
    }
    const toEve = (await h.comments(issue.number)).filter((b) => b.startsWith('@eve,'));
    expect(toEve).toHaveLength(REPLIES_PER_STRANGER_PER_HOUR);
    expect(h.runner.store.runs.size).toBe(0);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton help' });
    await h.settle();
    expect((await h.comments(issue.number)).filter((b) => b.startsWith('@alice, here is what baton understands'))).toHaveLength(1);
  }, 120_000);

  it(`refuses a stranger's answers to a running run's question at most ${REPLIES_PER_STRANGER_PER_HOUR} times; the question stays open`, async () => {
    h = await startHarness({ files: { '.agents/workflows/asker.yml': ASK } });
    h.emu.store.setVisibility('acme', 'widgets', 'public');
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Ask me', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
    await h.settle();
    for (let i = 0; i < 10; i++) {
      await h.as('eve').rest.issues.createComment({ ...o, issue_number: issue.number, body: `/baton answer ${i}` });
      await h.settle();
    }
    const toEve = (await h.comments(issue.number)).filter((b) => b.startsWith('@eve,'));
    expect(toEve).toHaveLength(REPLIES_PER_STRANGER_PER_HOUR);
    expect(toEve[0]).toContain('answers to baton\'s questions count only from people with');
    expect(await h.record(issue.number)).toContain(`run \`asker-${issue.number}-1\` — running`);
  }, 120_000);
});
