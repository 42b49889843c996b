// The checks gate against CI that waits for a person (conclusion `action_required`): an
// Actions run created waiting for approval because a workflow's GITHUB_TOKEN caused its
// `pull_request` event (GitHub's "GITHUB_TOKEN" page; readings.ts `tokenPullRequestRuns`),
// and another app's check run asking for an action. baton waits and says so; it never
// starts a fix round for it, and `names: ["*"]` never passes on a suite with no checks.
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

/** CI that only a push to an open PR starts: the PR baton opens starts nothing by itself. */
const CI = `name: CI
on: { pull_request: { types: [synchronize] } }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo tested
`;

const flow = (checks: string, prFirst: boolean) => {
  const pr = `  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;
  const ci = `  - id: ci
    checks: ${checks}
`;
  return `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
${prFirst ? pr + ci : ci + pr}`;
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(workflow: string, files: Record<string, string> = {}): Promise<{ h: Harness; issue: number; runId: string; tick: (minutes: number) => Promise<void> }> {
  let clock = Date.now();
  h = await startHarness({ files: { '.agents/workflows/quick.yml': workflow, ...files }, agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] }, triggerOnWebhooks: true, now: () => clock });
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data.number;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue, labels: ['baton:quick'] });
  await h.settle();
  const harness = h;
  const tick = async (minutes: number) => {
    clock += minutes * 60_000;
    await harness.app.sweep();
    await harness.settle();
  };
  return { h, issue, runId: `quick-${issue}-1`, tick };
}

/** Worker runs of fix rounds baton dispatched (none may exist for CI waiting for approval). */
const fixRuns = (h: Harness) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml') && /fix/.test(r.displayTitle));

/** baton's check run for the `ci` step on a commit. */
async function ciStepCheck(h: Harness, sha: string) {
  const runs = (await h.as('alice').rest.checks.listForRef({ ...o, ref: sha })).data.check_runs;
  return runs.find((c) => c.name === 'baton / quick / ci');
}

/** A push to the PR branch made with a workflow's GITHUB_TOKEN: its pull_request event, as GitHub sends it. */
async function synchronizeByToken(h: Harness, runId: string): Promise<void> {
  const pr = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data.find((p) => p.head.ref === `baton/${runId}`)!;
  await h.runner.trigger(o.owner, o.repo, 'pull_request', { action: 'synchronize', number: pr.number, pull_request: pr, sender: h.emu.shapes.user('github-actions[bot]') });
  await h.settle();
}

describe('app: CI waiting for approval', () => {
  it('names ["*"]: an Actions run held for approval (no check runs) is not "all green": baton waits, says why and how to avoid it, no fix round; approved and green, it passes', async () => {
    const { h, issue, runId } = await start(flow('{ names: ["*"], fix: implement, max-rounds: 2, timeout-minutes: 30 }', true), { '.github/workflows/ci.yml': CI });
    await synchronizeByToken(h, runId);
    const held = h.runner.awaiting;
    expect(held.map((r) => [r.workflowName, r.conclusion])).toEqual([['CI', 'action_required']]);
    const record = await h.record(issue);
    expect(record, record).toMatch(/\| 🔄 \| ci \| waiting for approval: GitHub Actions \(check suite \d+\) \|/);
    expect(fixRuns(h)).toEqual([]);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const shown = await ciStepCheck(h, head);
    expect(shown).toMatchObject({ status: 'in_progress', output: { title: expect.stringContaining('waiting for approval') } });
    expect(shown?.output.summary).toContain('baton init --app-token');

    // A person approves: the job runs green, and the gate goes on.
    expect(await h.runner.approve(held[0]!.id)).toBe(true);
    await h.settle();
    const done = await h.record(issue);
    expect(done, done).toContain(`run \`${runId}\` — succeeded`);
    expect(fixRuns(h)).toEqual([]);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  it('never approved: the gate fails at its timeout naming what waits for approval; no fix round', async () => {
    const { h, issue, runId, tick } = await start(flow('{ names: [test], fix: implement, max-rounds: 2, timeout-minutes: 30 }', true), { '.github/workflows/ci.yml': CI });
    await synchronizeByToken(h, runId);
    expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for approval: test, GitHub Actions|waiting for approval: GitHub Actions/);
    await tick(31);
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — failed`);
    expect(record).toMatch(/checks did not complete within 30 minutes \(still waiting for test; waiting for approval: GitHub Actions \(check suite \d+\) — approve them on the pull request/);
    expect(fixRuns(h)).toEqual([]);
    expect(h.runner.errors).toEqual([]);
  }, 90_000);

  it("another app's check run asking for an action waits, then counts when it reports green", async () => {
    const { h, issue, runId } = await start(flow('{ names: [external], fix: implement, max-rounds: 2 }', false));
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const ciApp = new Octokit({ baseUrl: h.emu.url, auth: h.emu.auth.mint({ ...o, permissions: { checks: 'write', metadata: 'read' }, login: 'ci-app[bot]' }) });
    await ciApp.rest.checks.create({ ...o, name: 'external', head_sha: head, conclusion: 'action_required', details_url: 'https://ci.example/approve' });
    await h.settle();
    expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for approval: external \|/);
    expect(fixRuns(h)).toEqual([]);
    await ciApp.rest.checks.create({ ...o, name: 'external', head_sha: head, conclusion: 'success' });
    await h.settle();
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    expect(fixRuns(h)).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  it('names ["*"] with no check ever reported besides baton’s own: fails at its timeout saying so', async () => {
    const { h, issue, runId, tick } = await start(flow('{ names: ["*"], timeout-minutes: 20 }', true), { '.github/workflows/ci.yml': CI });
    await tick(10);
    expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
    await tick(11);
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — failed`);
    expect(record).toContain('no check reported on');
  }, 90_000);
});
