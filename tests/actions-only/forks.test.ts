// A stranger's pull request from a fork in Actions-only mode, through the files `baton init`
// and `baton update` write: the fork's `pull_request` run has a read-only token and no secrets,
// so baton.yml lists `pull_request_target` for `forks: review` workflows — the base
// repository's workflow, token and secrets, no checkout of the fork's code — and the review
// runs in the dispatched worker, sandboxed, with the model key only (docs/actions-only.md).
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTask } from '../../src/agents/task.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { actionsOnlyForkFiles, strangerForkPull } from '../support/fork-review.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});


describe('Actions-only: a pull request from a fork', () => {
  it('with forks: review, pull_request_target drives the run: one review, the worker sandboxed with the model key only, nothing but baton\'s branch written, and not at the fork\'s commit', async () => {
    const written = await actionsOnlyForkFiles(['--mode', 'actions', '--workflows', 'review-pr']);
    expect(written['.github/workflows/baton.yml']).toContain('  pull_request_target: { types: [opened, synchronize, reopened, ready_for_review] }');
    h = await startActionsOnly({
      init: ['--mode', 'actions', '--workflows', 'review-pr'],
      files: written,
      agentScript: [{ probe: { ancestors: 0, output: true } }, { output: { approved: true, summary: 'Looks fine.', comments: [] } }],
      sandbox: true,
    });
    const { number, sha } = await strangerForkPull(h, o);
    const runId = `fork-review-${number}-1`;

    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: number })).data;
    expect(reviews.map((r) => [r.user?.login, r.state, r.commit_id])).toEqual([['github-actions[bot]', 'COMMENTED', sha]]);
    const records = (await h.as('alice').rest.issues.listComments({ ...o, issue_number: number })).data.filter((c) => c.body?.includes('baton:record'));
    expect(records).toHaveLength(1);
    expect(records[0]!.body).toContain(`run \`${runId}\` — succeeded`);

    // baton.yml ran twice for the one pull request: its pull_request run (read-only token, no
    // secrets) skipped the run job; its pull_request_target run drove the run.
    const batonRuns = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton.yml' && (r.event === 'pull_request' || r.event === 'pull_request_target'));
    expect(batonRuns.map((r) => r.event).sort()).toEqual(['pull_request', 'pull_request_target']);
    const fromFork = batonRuns.find((r) => r.event === 'pull_request')!;
    expect(h.runner.logs(fromFork.id)).toContain('baton route: this pull_request event concerns no baton run');
    const target = batonRuns.find((r) => r.event === 'pull_request_target')!;
    expect(h.runner.logs(target.id)).toContain('baton run: pull_request_target.opened');

    // Every attempt required the sandbox; the agent's secret-named variables: the model key only.
    const workers = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers).toHaveLength(2);
    for (const w of workers) expect(decodeTask(String(w.inputs.task)).sandbox).toMatchObject({ required: true, fork: true });
    const record = records[0]!.body!;
    const state = readStateBlock(record, undefined, { unsignedRead: true });
    if (!state.ok) throw new Error(state.problem);
    const loot = JSON.parse(String((state.state.steps.find((s) => s.id === 'look')?.outputs as { loot?: string } | null)?.loot)) as Record<string, string>;
    expect(Object.keys(loot)).toEqual(['ANTHROPIC_API_KEY']);

    // Branches: baton's run branch at the default branch's commit, never the fork's (GitHub alone
    // keeps that, as refs/pull/<n>/head); the fork's branch is written under no name.
    const git = h.emu.git(o.owner, o.repo);
    const main = await git.resolveRef('refs/heads/main');
    const refs = await git.listRefs('refs/heads/');
    expect(refs.map((r) => [r.ref, r.sha])).toEqual([
      [`refs/heads/baton/${runId}`, main],
      ['refs/heads/main', main],
    ]);
    // Only GitHub's own refs of the pull request (its head, the test merge) have the fork's commit.
    expect((await git.refsContaining(sha)).filter((r) => !r.startsWith(`refs/pull/${number}/`))).toEqual([]);
  }, 180_000);
});
