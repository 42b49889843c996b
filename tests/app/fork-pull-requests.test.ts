// A stranger's pull request from a fork, end to end on the emulator (`on.pull_request.forks:
// review`, docs/security.md "Pull requests from forks"): the run reads the fork's code
// sandboxed, with no secret but the model key — even one someone added to the worker
// workflow for another workflow — and writes nothing but baton's own branch and its records;
// without `forks: review` the same pull request starts nothing and costs no write.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTask } from '../../src/agents/task.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { FORK_REVIEW as REVIEW, strangerForkPull as forkPull } from '../support/fork-review.ts';
import { appRequests, initWorkerWorkflow, startHarness, type AgentScript, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const MODEL_KEY = 'sk-ant-test';
const DOCS_TOKEN = 'docs-token-of-another-workflow';


// The fork's agent, prompt-injected by the fork's code, collects every secret-named variable it has.
const AGENTS: AgentScript = {
  look: [{ probe: { ancestors: 0, output: true } }],
  'review/review': [{ output: { approved: false, summary: 'One thing to change.', comments: [{ path: 'src/app.txt', line: 1, body: 'Name it.' }] } }],
};

/** The worker workflow `baton init` writes, with a secret someone added to the agent's step for another workflow's MCP server. */
async function workerWithExtraSecret(): Promise<string> {
  const text = await initWorkerWorkflow();
  const line = '          ANTHROPIC_API_KEY: "${{ secrets.ANTHROPIC_API_KEY }}"\n';
  if (!text.includes(line)) throw new Error('the worker workflow passes no ANTHROPIC_API_KEY');
  return text.replace(line, `${line}          DOCS_TOKEN: "\${{ secrets.DOCS_TOKEN }}"\n`);
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** mallory (no access) forks the repository, commits src/app.txt on `patch-1` and opens a pull request. */
const strangerForkPull = (h: Harness) => forkPull(h, o);

const repoWrites = (h: Harness) => appRequests(h.emu).filter((r) => r.method !== 'GET' && r.route.includes(' /repos/'));

describe('app: a pull request from a fork', () => {
  it('with forks: review, a stranger\'s pull request gets one review; the agent ran sandboxed with no secret but the model key; nothing but baton\'s own branch was written, and not at the fork\'s commit', async () => {
    h = await startHarness({
      files: { '.agents/workflows/fork-review.yml': REVIEW, '.github/workflows/baton-worker.yml': await workerWithExtraSecret() },
      agents: AGENTS,
      secrets: { DOCS_TOKEN },
      sandbox: true,
    });
    const { number, sha } = await strangerForkPull(h);
    const runId = `fork-review-${number}-1`;

    // One review on the pull request, the reviewer's.
    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: number })).data;
    expect(reviews.map((r) => [r.user?.login, r.state, r.commit_id])).toEqual([['baton[bot]', 'COMMENTED', sha]]);
    expect(reviews[0]!.body).toContain('One thing to change.');
    expect(await h.record(number)).toContain(`run \`${runId}\` — succeeded`);

    // Every attempt of the run asked for the sandbox as required, and the fork flag reached the worker.
    const workers = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers).toHaveLength(2);
    for (const w of workers) {
      const task = decodeTask(String(w.inputs.task));
      expect(task.sandbox).toMatchObject({ required: true, fork: true, network: { mode: 'allow' } });
      expect(task.base).toBe(sha);
      expect(h.runner.logs(w.id)).toContain('::notice::baton sandbox: in force: agent-user, packet-filter, resource-limits');
    }

    // What the agent found named like a secret in its environment: the model key, and nothing else.
    const state = readStateBlock(await h.record(number), undefined, { unsignedRead: true });
    if (!state.ok) throw new Error(state.problem);
    const loot = JSON.parse(String((state.state.steps.find((s) => s.id === 'look')?.outputs as { loot?: string } | null)?.loot)) as Record<string, string>;
    expect(Object.keys(loot)).toEqual(['ANTHROPIC_API_KEY']);
    expect(JSON.stringify(state.state)).not.toContain(MODEL_KEY);
    expect(JSON.stringify(state.state)).not.toContain(DOCS_TOKEN);

    // Refs: baton's run branch in this repository, at the default branch's commit — never the
    // fork's, which GitHub alone keeps (refs/pull/<n>/head) — and baton's own claims under
    // refs/baton/, none at the fork's commit; the fork's branch is written under no name.
    const git = h.emu.git(o.owner, o.repo);
    const main = await git.resolveRef('refs/heads/main');
    const refs = await git.listRefs('refs/');
    expect(refs.filter((r) => !r.ref.startsWith('refs/baton/')).map((r) => [r.ref, r.sha])).toEqual([
      [`refs/heads/baton/${runId}`, main],
      ['refs/heads/main', main],
      [`refs/pull/${number}/head`, sha],
    ]);
    expect(await git.refsContaining(sha)).toEqual([`refs/pull/${number}/head`]);
    expect(repoWrites(h).filter((r) => r.path.includes('patch-1') || r.path.includes('mallory'))).toEqual([]);
    // No tree, blob, merge or file write anywhere (the one commit object baton makes is its
    // claim's, under refs/baton/).
    expect(repoWrites(h).filter((r) => /\/git\/(trees|blobs)|\/merges|\/contents\//.test(r.route))).toEqual([]);
    h.emu.assertNoViolations();
  }, 120_000);

  it('without forks: review, the same pull request starts nothing and writes nothing', async () => {
    h = await startHarness({ files: { '.agents/workflows/fork-review.yml': REVIEW.replace('    forks: review\n', '') }, agents: AGENTS });
    const before = repoWrites(h).length;
    const { number } = await strangerForkPull(h);

    expect(h.emu.webhooks.deliveries.filter((d) => d.event === 'pull_request').map((d) => d.action)).toEqual(['opened']);
    expect(repoWrites(h).slice(before)).toEqual([]);
    expect(await h.comments(number)).toEqual([]);
    expect(h.runner.store.runs.size).toBe(0);
    h.emu.assertNoViolations();
  }, 60_000);
});
