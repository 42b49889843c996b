// Commands that would do harm twice — `/baton retry`, `/baton approve`, a human "Request
// changes", an answer to a question — each delivered to two of three App replicas at the same
// moment (the harness's front door does that to every delivery). The two processes race on the
// run; the claim of the run's next generation on GitHub (hosts/github/lease.ts) lets one act and
// makes the other reload and find the command applied. Each story must end as it does with one
// process: one new worker run, one approval, one fix round, one answer, one status comment.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness, type HarnessOptions } from '../app/harness.ts';
import { FLAKY, FLAKY_AGENTS, heldBeforeChecks, HUMAN, HUMAN_AGENTS, HUMAN_REVIEW, reviewerAtWork, runBranchFiles, SHIP } from '../app/stories.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { ASK, attempts, o, startAsk } from './scenario.ts';

/** The harness of the test under way (closed after it, which also fails it on a lost delivery or an App error). */
let open: Harness | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const REPLICAS = 3;

async function replicas(over: Omit<HarnessOptions, 'replicas'>): Promise<Harness> {
  open = await startHarness({ ...over, replicas: REPLICAS });
  return open;
}

/** The FLAKY story on the replicas, once its run has failed at build #1. */
async function failedBuild(): Promise<{ h: Harness; n: number; runId: string }> {
  const h = await replicas({ files: { '.agents/workflows/build.yml': FLAKY }, agents: FLAKY_AGENTS });
  const n = await openLabelled(h, 'baton:build');
  const runId = `build-${n}-1`;
  await h.settle();
  expect(await h.record(n)).toContain(`run \`${runId}\` — failed`);
  return { h, n, runId };
}

/** Webhooks delivered and every replica done with them (workers may still run). */
async function quiet(h: Harness): Promise<void> {
  await h.emu.webhooks.idle();
  for (const app of h.apps) await app.runs.idle();
}

/** baton's comments on a thread, oldest first. */
async function botComments(h: Harness, number: number): Promise<string[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: number, per_page: 100 });
  return all.filter((c) => c.user?.login === 'baton[bot]').map((c) => c.body ?? '');
}

/** The keys of the events the run's record says it applied (delivery ids of what people did, …). */
async function appliedKeys(h: Harness, number: number): Promise<string[]> {
  const read = readStateBlock(await h.record(number), undefined, { unsignedRead: true });
  if (!read.ok) throw new Error(read.problem);
  return read.state.appliedKeys;
}

/** The delivery of the webhook `event` about the comment or review `id` (the command under test), as the App keys it. */
function deliveryKeyOf(h: Harness, event: 'issue_comment' | 'pull_request_review', id: number): string {
  const about = (d: { payload: Record<string, unknown> }) => (d.payload[event === 'issue_comment' ? 'comment' : 'review'] as { id?: number } | undefined)?.id === id;
  const found = h.emu.webhooks.deliveries.filter((d) => d.event === event && !d.dropped && about(d));
  if (found.length !== 1) throw new Error(`${found.length} ${event} webhooks about ${id}, expected one`);
  return `delivery:${found[0]!.id}`;
}

/**
 * What every story holds after its command arrived twice at once: both replicas took part, one
 * status comment, none of baton's comments posted twice, the command applied once, every delivery taken.
 */
async function expectAppliedOnce(h: Harness, number: number, key: string, replies: RegExp[]): Promise<void> {
  const comments = await botComments(h, number);
  expect(comments.filter((b) => b.includes('baton:record'))).toHaveLength(1);
  expect(comments.filter((b) => !b.includes('baton:record'))).toEqual(replies.map((r) => expect.stringMatching(r)));
  const keys = await appliedKeys(h, number);
  expect(keys.filter((k) => k === key)).toHaveLength(1);
  expect(new Set(keys).size).toBe(keys.length);
  const runNames = attempts(h);
  expect(new Set(runNames).size).toBe(runNames.length);
  expect(h.deliveryFailures()).toEqual([]);
}

/** A comment as alice on the thread; returns its id (for its 👀). */
async function comment(h: Harness, number: number, body: string): Promise<number> {
  return (await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body })).data.id;
}

/** The 👀 baton put on a command: once, however many replicas saw it. */
async function eyes(h: Harness, commentId: number): Promise<number> {
  const reactions = (await h.as('alice').rest.reactions.listForIssueComment({ ...o, comment_id: commentId })).data;
  return reactions.filter((r) => r.content === 'eyes' && r.user?.login === 'baton[bot]').length;
}

describe('reliability: a command that would do harm twice, delivered twice at once to different replicas', () => {
  it('`/baton retry <step>`: one new attempt dispatched, the run goes on once', async () => {
    const { h, n, runId } = await failedBuild();

    const asked = await comment(h, n, '/baton retry build');
    await h.settle();
    expect(attempts(h)).toEqual([`baton ${runId} build #1`, `baton ${runId} build #2`, `baton ${runId} after #1`]);
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| build \|[^|]*\| 2 \|/);
    expect(await eyes(h, asked)).toBe(1);
    await expectAppliedOnce(h, n, deliveryKeyOf(h, 'issue_comment', asked), []);
    h.emu.assertNoViolations();
  }, 120_000);

  it('`/baton approve`: approved once, the next step dispatched once', async () => {
    const h = await replicas({ files: { '.agents/workflows/ship.yml': SHIP } });
    const n = await openLabelled(h, 'baton:ship');
    const runId = `ship-${n}-1`;
    await h.settle();
    expect(await h.record(n)).toMatch(/\| 🔄 \| gate \| Ship the build\? \|/);

    const asked = await comment(h, n, '/baton approve');
    await h.settle();
    expect(attempts(h)).toEqual([`baton ${runId} build #1`, `baton ${runId} ship #1`]);
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| gate \|/);
    expect(await eyes(h, asked)).toBe(1);
    // The request for approval, and nothing else: no "nothing is waiting for approval" from a late second copy.
    await expectAppliedOnce(h, n, deliveryKeyOf(h, 'issue_comment', asked), [/^⏸️ Run `ship-\d+-1` is waiting for approval at step `gate`/]);
    expect(await runBranchFiles(h, runId)).toEqual(expect.arrayContaining(['built.txt', 'shipped.txt']));
    h.emu.assertNoViolations();
  }, 120_000);

  it('a human "Request changes" on the run\'s PR: one fix round, not two; the reviewer then approves', async () => {
    const h = await replicas({ files: { '.agents/workflows/human.yml': HUMAN }, agents: HUMAN_AGENTS });
    const { n, runId, pr } = await reviewerAtWork(h);
    const review = (await h.as('alice').rest.pulls.createReview({ ...o, pull_number: pr, ...HUMAN_REVIEW })).data;
    // Before the fix round ends: one reviewer stopped, one fix round dispatched (a second reviewer left hanging would never settle).
    await quiet(h);
    const soFar = attempts(h);
    expect(soFar).toContain(`baton ${runId} review[fix-1] #1`);
    expect(soFar.filter((t, i) => soFar.indexOf(t) !== i)).toEqual([]);
    await h.settle();
    expect(attempts(h)).toEqual([`baton ${runId} implement #1`, `baton ${runId} review[review] #1`, `baton ${runId} review[fix-1] #1`, `baton ${runId} review[review] #2`]);
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| review \| passed after 1 fix round/);
    // The fix agent ran once, with the human's words.
    expect(h.agentCalls().filter((c) => c.prompt.includes('Please add a test for a.'))).toHaveLength(1);
    await expectAppliedOnce(h, n, deliveryKeyOf(h, 'pull_request_review', review.id), []);
    h.emu.assertNoViolations();
  }, 120_000);

  it('an answer to a question: applied once, the next step runs once', async () => {
    const h = await replicas({ files: { '.agents/workflows/ask.yml': ASK } });
    const { number, runId } = await startAsk(h);
    expect(await h.record(number)).toMatch(/\| ❓ \| clarify \| waiting for answers \(0 of 1\)/);

    const asked = await comment(h, number, '/baton answer answer.txt');
    await h.settle();
    expect(attempts(h)).toEqual([`baton ${runId} write #1`]);
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);
    // The question, and nothing else.
    await expectAppliedOnce(h, number, deliveryKeyOf(h, 'issue_comment', asked), [/Which file\?/]);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const file = (await h.as('alice').rest.repos.getContent({ ...o, path: 'answer.txt', ref: head })).data as { content?: string };
    expect(Buffer.from(file.content ?? '', 'base64').toString()).toBe('answer.txt\n');
    h.emu.assertNoViolations();
  }, 120_000);
});

describe('reliability: a replica whose memory of the run is behind', () => {
  it('drops no worker result that is news to it: it finds the newer claim on GitHub, reloads and applies the result', async () => {
    const h = await replicas({ files: { '.agents/workflows/build.yml': FLAKY }, agents: FLAKY_AGENTS });
    const n = await openLabelled(h, 'baton:build');
    const runId = `build-${n}-1`;
    // What a replica that took no part in what follows holds: the run at work on build #1 (a
    // finished run is not kept in memory at all: its next event reads it from GitHub).
    const atWork = () => h.apps.map((app) => app.runs.memories.get(o.owner, o.repo, runId)).filter((m) => m?.state.steps[0]?.jobs[0]?.status === 'running').sort((a, b) => b!.gen - a!.gen)[0];
    await h.waitFor('a replica to hold build #1 at work', () => atWork() !== undefined);
    const snapshot = structuredClone(atWork()!);
    await h.settle();
    expect(await h.record(n)).toContain(`run \`${runId}\` — failed`);

    // The retry dispatches build #2; the webhook of its end is lost on the way.
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    await comment(h, n, '/baton retry build');
    await h.settle();
    expect(await h.record(n)).toMatch(/\| 🔄 \| build \|[^|]*\| 2 \|/);
    const lost = h.emu.webhooks.deliveries.find((d) => d.dropped && d.event === 'workflow_run');
    expect(lost).toBeDefined();

    // Every replica now holds the view from before the failure, where attempt #2 does not exist;
    // the lost webhook is redelivered (as an operator would) to two of them at once.
    for (const app of h.apps) app.runs.memories.set(o.owner, o.repo, structuredClone(snapshot));
    await h.emu.webhooks.redeliver(lost!.id);
    await h.settle();
    expect(await h.record(n)).toContain(`run \`${runId}\` — succeeded`);
    expect(attempts(h)).toEqual([`baton ${runId} build #1`, `baton ${runId} build #2`, `baton ${runId} after #1`]);
    expect(h.deliveryFailures()).toEqual([]);
    h.emu.assertNoViolations();
  }, 120_000);

  // CI on a commit no gate waits on changes nothing and costs no write (decide.ts); a replica whose
  // view predates the gate would take news for nothing: it checks the claims before dropping it.
  it('drops no CI result that a gate started since waits for: it finds the newer claim on GitHub, reloads and applies it', async () => {
    const held = heldBeforeChecks('held', ['external']);
    const h = await replicas({ files: { '.agents/workflows/held.yml': held }, agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] } });
    const n = await openLabelled(h, 'baton:held');
    const runId = `held-${n}-1`;
    await h.settle();
    const atHold = () => h.apps.map((app) => app.runs.memories.get(o.owner, o.repo, runId)).find((m) => m?.state.steps.find((st) => st.id === 'hold')?.status === 'running');
    expect(atHold()).toBeDefined();
    const snapshot = structuredClone(atHold()!);
    await comment(h, n, '/baton approve');
    await h.settle();
    expect(await h.record(n)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
    // Every replica now holds the view from before the gate: for it, a result on the head is nobody's news.
    for (const app of h.apps) app.runs.memories.set(o.owner, o.repo, structuredClone(snapshot));
    await h.as('alice').rest.repos.createCommitStatus({ ...o, sha: snapshot.state.head, state: 'success', context: 'external' });
    await h.settle();
    expect(await h.record(n)).toContain(`run \`${runId}\` — succeeded`);
    expect(h.deliveryFailures()).toEqual([]);
    h.emu.assertNoViolations();
  }, 120_000);
});
