// What people do to a run once it is going, end to end on the real worker: a human
// "Request changes" review on the run's PR (a fix round with the review as input),
// `/baton retry <step>` after a failure, `/baton cancel` (running workers cancelled),
// `/baton approve` (refused without the role, then given), `/baton status`.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, type Harness, openLabelled, startHarness } from './harness.ts';
import { FLAKY, FLAKY_AGENTS, HUMAN, HUMAN_AGENTS, HUMAN_REVIEW, reviewerAtWork, runBranchFiles, SHIP } from './stories.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});


const runs = (h: Harness) => [...h.runner.store.runs.values()];
const titles = (h: Harness) => runs(h).map((r) => r.displayTitle);
/** The fake agent CLI is at work (it logs each invocation once it has picked its behaviour). */
const agentAtWork = (h: Harness, match: (c: { name: string; prompt: string }) => boolean) => h.agentCalls().some(match);

const SLOW = `name: slow
on: { labels: ["baton:slow"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: left, agent: coder, prompt: "left side", needs: [] }
  - { id: right, agent: coder, prompt: "right side", needs: [] }
  - { id: after, run: echo after > after.txt, needs: [left, right] }
`;

describe('app: people acting on a run', () => {
  it('a human "Request changes" on the PR stops the reviewer, runs a fix round with the review as input, and the reviewer then approves', async () => {
    h = await startHarness({
      files: { '.agents/workflows/human.yml': HUMAN },
      agents: HUMAN_AGENTS,
    });
    const { n, runId, pr } = await reviewerAtWork(h);
    const alice = h.as('alice');
    await alice.rest.pulls.createReview({ ...o, pull_number: pr, ...HUMAN_REVIEW });
    await h.settle();

    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| review \| passed after 1 fix round/);
    // The reviewer at work was cancelled; the fix round got the human's words; the reviewer looked again.
    expect(runs(h).find((r) => r.displayTitle === `baton ${runId} review[review] #1`)?.conclusion).toBe('cancelled');
    const fix = h.agentCalls().find((c) => c.prompt.includes('Please add a test for a.'));
    expect(fix?.prompt).toContain('Cover this line.');
    expect(titles(h)).toEqual(expect.arrayContaining([`baton ${runId} review[fix-1] #1`, `baton ${runId} review[review] #2`]));
    const head = (await alice.rest.pulls.get({ ...o, pull_number: pr })).data.head.sha;
    const tree = (await alice.rest.git.getTree({ ...o, tree_sha: head, recursive: 'true' })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['a.txt', 'a.test.txt']));
    expect(new Set(titles(h)).size).toBe(titles(h).length);
    h.emu.assertNoViolations();
  }, 60_000);

  it('`/baton retry <step>` after a failed step runs it again and the run goes on to succeed', async () => {
    h = await startHarness({
      files: { '.agents/workflows/build.yml': FLAKY },
      agents: FLAKY_AGENTS,
    });
    const n = await openLabelled(h, 'baton:build');
    const runId = `build-${n}-1`;
    await h.settle();
    const failed = await h.record(n);
    expect(failed).toContain(`run \`${runId}\` — failed`);
    expect(failed).toMatch(/\| ❌ \| build \|/);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry build' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| build \|[^|]*\| 2 \|/);
    expect(titles(h)).toEqual([`baton ${runId} build #1`, `baton ${runId} build #2`, `baton ${runId} after #1`]);
    expect(await runBranchFiles(h, runId)).toEqual(expect.arrayContaining(['built.txt', 'after.txt']));
    h.emu.assertNoViolations();
  }, 60_000);

  it('`/baton cancel` cancels the running worker jobs and the record says cancelled; nothing after them runs', async () => {
    h = await startHarness({ files: { '.agents/workflows/slow.yml': SLOW }, agents: { left: [{ hang: true }], right: [{ hang: true }] } });
    const n = await openLabelled(h, 'baton:slow');
    const runId = `slow-${n}-1`;
    await h.waitFor('both workers to be at work', () => agentAtWork(h!, (c) => c.prompt.includes('left side')) && agentAtWork(h!, (c) => c.prompt.includes('right side')));
    await h.emu.webhooks.idle();
    await h.app.runs.idle();

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton cancel' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — cancelled`);
    // The record notifies nobody: a name in it is shown with its mention made inert.
    expect(record).toContain('cancelled by @\u200Balice');
    expect(runs(h).map((r) => [r.displayTitle, r.conclusion])).toEqual([
      [`baton ${runId} left #1`, 'cancelled'],
      [`baton ${runId} right #1`, 'cancelled'],
    ]);
    const cancels = appRequests(h.emu).filter((r) => r.route === 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel');
    expect(cancels).toHaveLength(2);
    h.emu.assertNoViolations();
  }, 60_000);

  it('`/baton approve` is refused without the step\'s role and taken with it; `/baton status` answers in the thread', async () => {
    h = await startHarness({ files: { '.agents/workflows/ship.yml': SHIP }, roles: { alice: 'admin', bob: 'write' } });
    const n = await openLabelled(h, 'baton:ship');
    const runId = `ship-${n}-1`;
    await h.settle();
    expect((await h.comments(n)).some((b) => b.includes(`Run \`${runId}\` is waiting for approval at step \`gate\``) && b.includes('Ship the build?'))).toBe(true);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton status' });
    await h.settle();
    expect((await h.comments(n)).some((b) => b.startsWith(`@alice, 🏃 baton · ship · run \`${runId}\` — running (1 of 3 steps done)`) && b.includes('The status comment is kept up to date'))).toBe(true);

    await h.as('bob').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    expect((await h.comments(n)).some((b) => b.includes('@bob, approving step `gate` needs') && b.includes('yours is `write`'))).toBe(true);
    expect(await h.record(n)).toMatch(/\| 🔄 \| gate \| Ship the build\? \|/);
    expect(titles(h)).toEqual([`baton ${runId} build #1`]);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| gate \|/);
    // The gate's check run (on the run branch commit it waited on) says who approved.
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const commits = execFileSync('git', ['--git-dir', h.emu.gitDir('acme', 'widgets'), 'rev-list', head], { encoding: 'utf8' }).split('\n').filter(Boolean);
    const checks = (await Promise.all(commits.map(async (sha) => (await h!.as('alice').rest.checks.listForRef({ ...o, ref: sha })).data.check_runs))).flat();
    const gate = checks.find((c) => c.name === 'baton / ship / gate');
    expect([gate?.conclusion, gate?.output.title]).toEqual(['success', 'approved by @alice']);
    expect(titles(h)).toEqual([`baton ${runId} build #1`, `baton ${runId} ship #1`]);
    h.emu.assertNoViolations();
  }, 60_000);
});
