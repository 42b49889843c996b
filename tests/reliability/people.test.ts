// People who should not steer a run: a status comment forged by another user or edited by
// an admin (ignored and reported in the thread), and commands and answers from a read-only
// user such as a fork contributor (refused, naming the role).
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../app/harness.ts';
import { ASK, o, startAsk } from './scenario.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});



describe('reliability: people', () => {
  it('a forged status comment is ignored and reported; an admin\'s edit of the real one is overwritten by the true record', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK }, roles: { alice: 'admin', mallory: 'write' } });
    const { number, runId } = await startAsk(h);
    const real = await h.record(number);
    const bot = (await h.as('alice').rest.issues.listComments({ ...o, issue_number: number })).data.find((c) => c.body === real)!;

    // mallory copies the record and claims the run is done; the app restarts and reads the thread again.
    const forged = (await h.as('mallory').rest.issues.createComment({ ...o, issue_number: number, body: real.replace('— waiting', '— succeeded') })).data;
    await h.restart();
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton answer answer.txt' });
    await h.settle();
    const record = await h.record(number);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    const comments = await h.comments(number);
    expect(comments.some((b) => b.includes(`Comment ${forged.id} looks like a baton status comment, but written by @mallory`))).toBe(true);

    // An admin edits baton's own comment; the next event rewrites it from the state baton holds.
    await h.as('alice').rest.issues.updateComment({ ...o, comment_id: bot.id, body: record.replace('— succeeded', '— cancelled') });
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton retry write' });
    await h.settle();
    const after = await h.record(number);
    expect(after).toContain(`run \`${runId}\` — succeeded`);
    expect(after).toMatch(/\| ✅ \| write \|[^|]*\| 2 \|/);
    expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton ${runId} write #1`, `baton ${runId} write #2`]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a read-only user (a fork contributor) cannot start, answer or cancel: refused, naming the role; the run goes on', async () => {
    h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK }, roles: { alice: 'admin', eve: 'read' } });
    const eve = h.as('eve');
    const { number, runId } = await startAsk(h);

    await eve.rest.issues.createComment({ ...o, issue_number: number, body: '/baton ask' });
    await eve.rest.issues.createComment({ ...o, issue_number: number, body: '/baton cancel' });
    await eve.rest.issues.createComment({ ...o, issue_number: number, body: '/baton answer evil.txt' });
    await h.settle();
    const comments = await h.comments(number);
    expect(comments.some((b) => b.includes('@eve, starting `ask` needs') && b.includes('yours is `read`'))).toBe(true);
    expect(comments.some((b) => b.includes('@eve, cancelling this run needs') && b.includes('yours is `read`'))).toBe(true);
    expect(await h.record(number)).toMatch(/\| ❓ \| clarify \| waiting for answers \(0 of 1\)/);
    expect(comments.filter((b) => b.includes('baton:record'))).toHaveLength(1);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton answer answer.txt' });
    await h.settle();
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton ${runId} write #1`]);
    h.emu.assertNoViolations();
  }, 60_000);
});
