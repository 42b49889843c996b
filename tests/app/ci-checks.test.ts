// The `checks` gate against CI as it runs on GitHub: an Actions workflow of the repository
// started by baton's pushes to the run branch (its jobs are check runs of the app
// `github-actions`), and another GitHub App reporting check runs. baton's own check runs
// (`baton / …`) are never taken for CI.
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES, type Readings } from '../emulator/readings.ts';
import { startHarness, type Harness } from './harness.ts';
import { heldBeforeChecks } from './stories.ts';

/** CI on every push to a run branch: `test` fails until ci-fixed.txt exists. */
const CI = `name: CI
on: { push: { branches: ["baton/*"] } }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: test -f src/fix.txt && test -f ci-fixed.txt
`;

const quick = (checks: string) => `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
  - id: ci
    checks: ${checks}
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const o = { owner: 'acme', repo: 'widgets' };

async function start(files: Record<string, string>, agents: Parameters<typeof startHarness>[0]['agents'], readings?: Partial<Readings>): Promise<{ h: Harness; issue: number; runId: string }> {
  h = await startHarness({ files, agents, triggerOnWebhooks: true, ...(readings ? { readings } : {}) });
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data.number;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue, labels: ['baton:quick'] });
  await h.settle();
  return { h, issue, runId: `quick-${issue}-1` };
}

async function fileAt(h: Harness, path: string, ref: string): Promise<string> {
  const got = await h.as('alice').rest.repos.getContent({ ...o, path, ref });
  return Buffer.from((got.data as { content: string }).content, 'base64').toString();
}

describe('app: the checks gate with CI as GitHub runs it', () => {
  it('waits for an Actions CI job on the run branch, fixes once when it fails, passes when it is green; dotfiles the agent wrote land', async () => {
    const { h, issue, runId } = await start(
      { '.agents/workflows/quick.yml': quick('{ names: [test], fix: implement, max-rounds: 2 }'), '.github/workflows/ci.yml': CI },
      {
        implement: [{ write: { 'src/fix.txt': 'fixed\n', '.gitignore': 'dist/\n', '.config/lint.json': '{"strict":true}\n' } }],
        'ci/fix-1': [{ write: { 'ci-fixed.txt': 'ok\n' } }],
      },
    );
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| ci \| passed after 1 fix round/);

    // CI really ran as Actions jobs on every head of the run branch: red until the fix, then green on the PR's head.
    const ci = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headBranch === `baton/${runId}`);
    expect(ci.map((r) => r.conclusion)).toEqual([...ci.slice(1).map(() => 'failure'), 'success']);
    const pr = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data.find((p) => p.head.ref === `baton/${runId}`)!;
    expect(pr.head.sha).toBe(ci.at(-1)!.headSha);
    const checks = (await h.as('alice').rest.checks.listForRef({ ...o, ref: pr.head.sha })).data.check_runs;
    expect(checks.find((c) => c.name === 'test')).toMatchObject({ conclusion: 'success', app: { slug: 'github-actions' } });
    // Hidden files survive the worker's artifact (upload-artifact drops them unless told not to).
    expect(await fileAt(h, '.gitignore', pr.head.sha)).toBe('dist/\n');
    expect(await fileAt(h, '.config/lint.json', pr.head.sha)).toBe('{"strict":true}\n');
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  it('with names ["*"], takes the Actions CI jobs and not its own check runs', async () => {
    const { h, issue, runId } = await start(
      { '.agents/workflows/quick.yml': quick('{ names: ["*"], fix: implement, max-rounds: 2 }'), '.github/workflows/ci.yml': CI },
      { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }], 'ci/fix-1': [{ write: { 'ci-fixed.txt': 'ok\n' } }] },
    );
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    // The red CI run was seen (one fix round): `*` waited for the Actions job, not only for baton's checks.
    expect(record).toMatch(/\| ✅ \| ci \| passed after 1 fix round/);
    expect(h.runner.errors).toEqual([]);
  }, 90_000);

  // Which branch an app's check suite names is undocumented (readings.ts): a branch `a-copy`
  // at the same commit sorts before the run branch, so the suite may name it, the run branch,
  // or nothing; baton finds the run by the commit in every case.
  it.each(READING_VALUES.checkSuiteHeadBranch)("takes another GitHub App's check runs on the run branch head (a suite's head_branch: %s)", async (checkSuiteHeadBranch) => {
    const { h, issue, runId } = await start({ '.agents/workflows/quick.yml': quick('{ names: [external] }') }, { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] }, { checkSuiteHeadBranch });
    expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    await h.as('alice').rest.git.createRef({ ...o, ref: 'refs/heads/a-copy', sha: head });
    // A CI service installed as its own app reports on the head with its installation token.
    const ciApp = new Octokit({ baseUrl: h.emu.url, auth: h.emu.auth.mint({ ...o, permissions: { checks: 'write', metadata: 'read' }, login: 'ci-app[bot]' }) });
    const created = (await ciApp.rest.checks.create({ ...o, name: 'external', head_sha: head, status: 'in_progress' })).data;
    expect(created.app?.slug).toBe('ci-app');
    const suite = (await ciApp.rest.checks.getSuite({ ...o, check_suite_id: created.check_suite!.id })).data;
    expect(suite.head_branch).toBe({ 'first-branch': 'a-copy', 'pushed-branch': `baton/${runId}`, null: null }[checkSuiteHeadBranch]);
    await h.settle();
    expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
    await ciApp.rest.checks.update({ ...o, check_run_id: created.id, conclusion: 'success' });
    await h.settle();
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  // Most CI events of a run come while no gate waits: they change nothing, so they cost no claim
  // and no record edit; the gate reads what came before it. While the run waits for its approval,
  // its head is held off the branch (refs/baton/heads/<run>: engine/held.ts), so push CI has not
  // run on it; a status from a CI service outside Actions may still report on that commit.
  it('costs no write for CI that reports while no gate waits, and the gate reads it (a status, an Actions job) when it starts', async () => {
    const green = CI.replace('test -f src/fix.txt && test -f ci-fixed.txt', 'test -f src/fix.txt');
    const held = heldBeforeChecks('quick', ['test', 'external']);
    const { h, issue, runId } = await start({ '.agents/workflows/quick.yml': held, '.github/workflows/ci.yml': green }, { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] });
    expect(await h.record(issue)).toMatch(/\| 🔄 \| hold \| Go on\? \|/);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `baton/heads/${runId}` })).data.object.sha;
    const ciAt = () => [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headSha === head);
    expect(ciAt()).toEqual([]);
    const appWrites = () => h.emu.requestLog.filter((r) => r.identity.startsWith('installation:') && r.method !== 'GET').length;
    const before = appWrites();
    const sent = h.emu.webhooks.deliveries.length;
    await h.as('alice').rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'external' });
    await h.settle();
    // The status was delivered to the App, and it wrote nothing for it.
    expect(h.emu.webhooks.deliveries.slice(sent).map((d) => d.event)).toContain('status');
    expect(appWrites() - before).toBe(0);
    // Once approved, the branch takes the head and its push CI runs; the gate reads that and the status, and passes.
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: issue, body: '/baton approve' });
    await h.settle();
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| ci \| done \|/);
    expect(ciAt().map((r) => r.conclusion)).toEqual(['success']);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  it('takes a status on the run branch head when the status lists 10 other branches that contain it', async () => {
    const { h, issue, runId } = await start({ '.agents/workflows/quick.yml': quick('{ names: [external] }') }, { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] });
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    // Ten branches at the head sort before `baton/…`: the status names those ten and not the run branch.
    for (let i = 0; i < 10; i++) await h.as('alice').rest.git.createRef({ ...o, ref: `refs/heads/a-${i}`, sha: head });
    await h.settle();
    const sent = h.emu.webhooks.deliveries.length;
    await h.as('alice').rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'external' });
    await h.settle();
    const status = h.emu.webhooks.deliveries.slice(sent).find((d) => d.event === 'status')!;
    expect((status.payload.branches as { name: string }[]).map((b) => b.name)).toEqual([...Array(10).keys()].map((i) => `a-${i}`));
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);
});
