// Attack: people without a role make baton write — replies, notices about look-alike status
// comments, 👀 reactions, status comment rewrites, claim refs — as often as they comment.
// Defence: one door (src/hosts/github/stranger-door.ts). What a stranger asks for is refused
// before the engine (no claim, no rewrite); every write made because of one is rationed, counted
// from GitHub: WRITES_PER_STRANGER_PER_HOUR per person and thread, and
// STRANGER_WRITES_PER_THREAD_PER_HOUR for all strangers of a thread together; a look-alike
// record is reported once per thread. Writes are counted from the emulator's request log.
import { afterEach, describe, expect, it } from 'vitest';
import { STRANGER_WRITES_PER_THREAD_PER_HOUR, WRITES_PER_STRANGER_PER_HOUR } from '../../src/hosts/github/stranger-door.ts';
import { appRequests, startHarness, type Harness } from '../app/harness.ts';

const ASK = `name: ask
on: { labels: ["baton:ask"], commands: [ask] }
steps:
  - id: clarify
    ask: { questions: ["Which file?"] }
  - id: write
    env: { ANSWER: "\${{ steps.clarify.outputs.answers[0] }}" }
    run: echo "$ANSWER" > answer.txt
`;

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** alice starts a run that waits for an answer; the thread's number and run id. */
async function waitingRun(harness: Harness): Promise<{ number: number; runId: string }> {
  const issue = (await harness.as('alice').rest.issues.create({ ...o, title: 'Ask', body: '' })).data;
  await harness.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
  await harness.settle();
  expect(await harness.record(issue.number)).toContain(`run \`ask-${issue.number}-1\` — running`);
  return { number: issue.number, runId: `ask-${issue.number}-1` };
}

/** The App's writes to the repository (anything but a read; not its own tokens) from the `from`-th request of the log on. */
function writesSince(harness: Harness, from: number): string[] {
  return appRequests(harness.emu)
    .slice(from)
    .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.route.includes(' /repos/'))
    .map((r) => r.route);
}

async function claimRefs(harness: Harness, runId: string): Promise<string[]> {
  const refs = await harness.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: `baton/leases/${runId}/`, per_page: 100 });
  return (refs as Array<{ ref: string }>).map((r) => r.ref);
}

async function say(harness: Harness, login: string, number: number, body: string): Promise<void> {
  await harness.as(login).rest.issues.createComment({ ...o, issue_number: number, body });
  await harness.settle();
}

describe('what strangers cost', () => {
  it(`30 comments of every kind from one stranger cost at most ${WRITES_PER_STRANGER_PER_HOUR} writes, across a restart`, async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number } = await waitingRun(h);
    const from = appRequests(h.emu).length;
    const kinds = ['/baton ask', '/baton help', '/baton cancel', '/baton retry clarify', '/baton approve', '/baton status', '/baton nope', '/baton answer src/answer.txt', '/baton plan ask', '/baton approve please'];
    for (let i = 0; i < 30; i++) {
      await say(h, 'eve', number, kinds[i % kinds.length]!);
      if (i === 14) await h.restart();
    }
    const writes = writesSince(h, from);
    expect(writes.length, writes.join('\n')).toBeLessThanOrEqual(WRITES_PER_STRANGER_PER_HOUR);
    expect(writes.length).toBeGreaterThan(0); // told, a few times, why nothing happens
    expect(await h.record(number)).toContain(`run \`ask-${number}-1\` — running`);
  }, 120_000);

  it('10 look-alike status comments posted in a burst are reported once', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number } = await waitingRun(h);
    const real = await h.record(number);
    await Promise.all(Array.from({ length: 10 }, (_, i) => h!.as('eve').rest.issues.createComment({ ...o, issue_number: number, body: real.replace('— running', `— succeeded ${i}`) })));
    await h.settle();
    // And again later, when the thread is read for something else.
    await say(h, 'alice', number, '/baton status');
    const notices = (await h.comments(number)).filter((b) => b.includes('looks like a baton status comment'));
    expect(notices).toHaveLength(1);
  }, 90_000);

  it(`20 \`/baton approve\` from a stranger on a run with nothing waiting cost at most ${WRITES_PER_STRANGER_PER_HOUR} replies`, async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number } = await waitingRun(h);
    const from = appRequests(h.emu).length;
    for (let i = 0; i < 20; i++) await say(h, 'eve', number, '/baton approve');
    const toEve = (await h.comments(number)).filter((b) => b.startsWith('@eve,'));
    expect(toEve).toHaveLength(WRITES_PER_STRANGER_PER_HOUR);
    expect(toEve[0]).toContain('approving a step of this run needs `write` permission (or higher); yours is `read`');
    expect(writesSince(h, from).length).toBeLessThanOrEqual(WRITES_PER_STRANGER_PER_HOUR);
  }, 120_000);

  it(`commands on a pull request that claims to be a baton run's are rationed like any other`, async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { runId } = await waitingRun(h);
    const alice = h.as('alice');
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/lookalike', sha: main });
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'x.txt', message: 'x', content: Buffer.from('x\n').toString('base64'), branch: 'lookalike' });
    const pr = (await alice.rest.pulls.create({ ...o, head: 'lookalike', base: 'main', title: 'Not baton', body: `Opened by baton run \`${runId}\` (workflow \`ask\`).` })).data;
    const from = appRequests(h.emu).length;
    for (let i = 0; i < 10; i++) await say(h, 'eve', pr.number, i % 2 ? '/baton cancel' : '/baton status');
    const replies = (await h.comments(pr.number)).filter((b) => b.includes('nothing was done'));
    expect(replies).toHaveLength(WRITES_PER_STRANGER_PER_HOUR);
    expect(replies.every((b) => b.startsWith('@eve,'))).toBe(true);
    expect(writesSince(h, from).length).toBeLessThanOrEqual(WRITES_PER_STRANGER_PER_HOUR);
  }, 90_000);

  it('a refused cancel, retry or answer claims nothing and leaves the status comment as it was', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number, runId } = await waitingRun(h);
    const claims = await claimRefs(h, runId);
    const record = await h.record(number);
    const from = appRequests(h.emu).length;
    for (const body of ['/baton cancel', '/baton retry clarify', '/baton answer src/answer.txt']) await say(h, 'eve', number, body);
    const writes = writesSince(h, from);
    expect(writes.filter((r) => r.includes('/git/refs')), writes.join('\n')).toEqual([]);
    expect(writes.filter((r) => r.startsWith('PATCH')), writes.join('\n')).toEqual([]);
    expect(await claimRefs(h, runId)).toEqual(claims);
    expect(await h.record(number)).toBe(record);
    const toEve = (await h.comments(number)).filter((b) => b.startsWith('@eve,'));
    expect(toEve.map((b) => b.split('\n')[0])).toEqual([
      '@eve, cancelling this run needs `write` permission (or higher); yours is `read`.',
      '@eve, retrying a step needs `write` permission (or higher); yours is `read`.',
      "@eve, thanks — but answers to baton's questions count only from people with `write` permission (or higher).",
    ]);
  }, 90_000);

  it(`many strangers on one thread together cost at most ${STRANGER_WRITES_PER_THREAD_PER_HOUR} writes; a maintainer is still answered`, async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number } = await waitingRun(h);
    const strangers = ['eve', 'mallory', 'trudy', 'oscar', 'peggy', 'sybil'];
    const from = appRequests(h.emu).length;
    for (let round = 0; round < 3; round++) for (const login of strangers) await say(h, login, number, '/baton help');
    const writes = writesSince(h, from);
    expect(writes.length, writes.join('\n')).toBe(STRANGER_WRITES_PER_THREAD_PER_HOUR);
    await say(h, 'alice', number, '/baton help');
    expect((await h.comments(number)).filter((b) => b.startsWith('@alice, here is what baton understands'))).toHaveLength(1);
  }, 120_000);
});
