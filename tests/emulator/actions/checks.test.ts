// Check suites and check runs as GitHub keeps them: one suite per app per commit; each
// workflow run is a suite of GitHub Actions whose check runs are its jobs; check events of
// Actions' suites start no workflow.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator.ts';
import { withActions } from './index.ts';
import type { ActionsRunner } from './runner.ts';

let emu: Emulator;
let runner: ActionsRunner;

beforeAll(async () => {
  const actions = withActions({ triggerOnWebhooks: true });
  emu = await startEmulator({ plugins: [actions.plugin] });
  runner = actions.runner;
});

afterAll(async () => {
  await emu?.close();
});

const o = { owner: 'acme', repo: 'widgets' };
const as = (login: string): Octokit => new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken(login) });
/** An installation token of an app: baton's (`baton[bot]`), another app's (`<slug>[bot]`), or a job's GITHUB_TOKEN (`github-actions[bot]`). */
const appOctokit = (login: string): Octokit => new Octokit({ baseUrl: emu.url, auth: emu.auth.mint({ ...o, permissions: { checks: 'write', metadata: 'read' }, login }) });

type Check = { name: string; status: string; conclusion: string | null; app: { slug: string } | null; check_suite: { id: number } | null };

describe('check suites and check runs', () => {
  it('runs jobs as check runs of github-actions in their run’s own suite; every other app has one suite per commit', async () => {
    await emu.createRepo(o.owner, o.repo, {
      'README.md': '# widgets\n',
      '.github/workflows/ci.yml': `name: CI
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps: [ { run: "true" } ]
  lint:
    name: lint code
    needs: test
    runs-on: ubuntu-latest
    steps: [ { run: "exit 1" } ]
`,
      '.github/workflows/docs.yml': `name: Docs
on: push
jobs:
  docs:
    runs-on: ubuntu-latest
    steps: [ { run: "true" } ]
`,
      '.github/workflows/on-checks.yml': `name: on-checks
on: [check_run, check_suite]
jobs:
  show:
    runs-on: ubuntu-latest
    steps: [ { run: "echo \${{ github.event_name }}" } ]
`,
    });
    emu.store.setRole(o.owner, o.repo, 'alice', 'admin');
    await as('alice').rest.repos.createOrUpdateFileContents({ ...o, path: 'src/a.txt', message: 'Add a', content: Buffer.from('a\n').toString('base64'), branch: 'main' });
    await runner.idle();
    const sha = (await as('alice').rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const ci = [...runner.store.runs.values()].find((r) => r.workflowName === 'CI')!;
    const docs = [...runner.store.runs.values()].find((r) => r.workflowName === 'Docs')!;
    expect(ci.conclusion, runner.logs(ci.id)).toBe('failure');

    const checks = async () => (await as('alice').rest.checks.listForRef({ ...o, ref: sha })).data.check_runs as unknown as Check[];
    const byName = (list: Check[]) => Object.fromEntries(list.map((c) => [c.name, { status: c.status, conclusion: c.conclusion, app: c.app?.slug, suite: c.check_suite?.id }]));
    // Each job is a check run named like the job, of app github-actions, in its run's suite.
    expect(byName(await checks())).toEqual({
      test: { status: 'completed', conclusion: 'success', app: 'github-actions', suite: ci.checkSuiteId },
      'lint code': { status: 'completed', conclusion: 'failure', app: 'github-actions', suite: ci.checkSuiteId },
      docs: { status: 'completed', conclusion: 'success', app: 'github-actions', suite: docs.checkSuiteId },
    });
    expect(ci.checkSuiteId).not.toBe(docs.checkSuiteId);
    const ciSuite = (await as('alice').rest.checks.getSuite({ ...o, check_suite_id: ci.checkSuiteId })).data;
    expect([ciSuite.app?.slug, ciSuite.status, ciSuite.conclusion, ciSuite.head_sha, ciSuite.head_branch]).toEqual(['github-actions', 'completed', 'failure', sha, 'main']);
    // The job's check run follows it: queued/in_progress → completed, with check_run and check_suite webhooks.
    const testEvents = emu.webhooks.deliveries
      .filter((d) => d.event === 'check_run' && (d.payload.check_run as { name: string }).name === 'test')
      .map((d) => `${d.payload.action as string}:${(d.payload.check_run as { status: string }).status}:${(d.payload.check_run as { app: { slug: string } }).app.slug}`);
    expect(testEvents).toEqual(['created:in_progress', 'completed:completed'].map((e) => `${e}:github-actions`));
    const suiteEvents = emu.webhooks.deliveries.filter((d) => d.event === 'check_suite').map((d) => (d.payload.check_suite as { id: number; conclusion: string }));
    expect(suiteEvents).toContainEqual(expect.objectContaining({ id: ci.checkSuiteId, conclusion: 'failure' }));
    // The workflow_job's check_run_url names the job's check run.
    const job = (await as('alice').rest.actions.listJobsForWorkflowRun({ ...o, run_id: ci.id })).data.jobs.find((j) => j.name === 'test')!;
    const viaUrl = (await as('alice').request(`GET ${job.check_run_url}`)).data as Check;
    expect([viaUrl.name, viaUrl.app?.slug]).toEqual(['test', 'github-actions']);

    // Other apps: one suite each per commit, their check runs carrying their app.
    const baton = appOctokit('baton[bot]');
    const ciApp = appOctokit('ci-app[bot]');
    const mine = (await baton.rest.checks.create({ ...o, name: 'baton / quick', head_sha: sha, status: 'in_progress' })).data;
    const theirs = (await ciApp.rest.checks.create({ ...o, name: 'external', head_sha: sha, status: 'completed', conclusion: 'success' })).data;
    const theirs2 = (await ciApp.rest.checks.create({ ...o, name: 'external 2', head_sha: sha, status: 'completed', conclusion: 'success' })).data;
    // A check run made with a job's GITHUB_TOKEN lands in an Actions suite of the commit.
    const token = (await appOctokit('github-actions[bot]').rest.checks.create({ ...o, name: 'annotations', head_sha: sha, status: 'completed', conclusion: 'neutral' })).data;
    expect([mine.app?.slug, theirs.app?.slug, token.app?.slug]).toEqual(['baton', 'ci-app', 'github-actions']);
    expect(theirs2.check_suite?.id).toBe(theirs.check_suite?.id);
    expect(new Set([mine.check_suite?.id, theirs.check_suite?.id, ci.checkSuiteId]).size).toBe(3);
    expect(token.check_suite?.id).toBe(ci.checkSuiteId);
    // The checks API is for apps: a person's token is refused.
    const refused = await as('alice').rest.checks.create({ ...o, name: 'mine', head_sha: sha }).catch((e: { status: number; message: string }) => e);
    expect((refused as { status: number }).status).toBe(403);
    expect((refused as { message: string }).message).toContain('You must authenticate via a GitHub App.');
    await runner.idle();

    // No check event of an Actions suite (sent as alice, who pushed) started a workflow; the other apps' check runs did.
    const started = runner.triggered.filter((t) => t.path === '.github/workflows/on-checks.yml');
    const startedBy = started.map((t) => (runner.store.runs.get(t.runId)!.actor as { login: string }).login);
    expect(started.length).toBeGreaterThan(0);
    expect(new Set(startedBy)).toEqual(new Set(['baton[bot]', 'ci-app[bot]']));
    const skipped = runner.skippedTriggers.filter((s) => s.workflows.includes('.github/workflows/on-checks.yml'));
    expect(skipped.some((s) => s.event === 'check_run' && s.reason.includes('GitHub Actions check suite'))).toBe(true);
    expect(skipped.some((s) => s.event === 'check_suite' && s.reason.includes('GitHub Actions check suite'))).toBe(true);
    // …and a check_suite of another app on a commit Actions ran on starts nothing either.
    expect(skipped.some((s) => s.event === 'check_suite' && s.sender === 'ci-app[bot]' && s.reason.includes('commit GitHub Actions ran on'))).toBe(true);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('puts a pull_request run’s check runs on the pull request’s head, not on the test merge commit', async () => {
    const p = { owner: 'acme', repo: 'pulls' };
    await emu.createRepo(p.owner, p.repo, {
      'README.md': '# pulls\n',
      '.github/workflows/pr.yml': 'name: PR\non: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [ { run: "true" } ]\n',
    });
    emu.store.setRole(p.owner, p.repo, 'alice', 'admin');
    const alice = as('alice');
    const main = (await alice.rest.git.getRef({ ...p, ref: 'heads/main' })).data.object.sha;
    await alice.rest.git.createRef({ ...p, ref: 'refs/heads/feature', sha: main });
    await alice.rest.repos.createOrUpdateFileContents({ ...p, path: 'f.txt', message: 'Feature', content: Buffer.from('f\n').toString('base64'), branch: 'feature' });
    const pull = (await alice.rest.pulls.create({ ...p, head: 'feature', base: 'main', title: 'Feature' })).data;
    await runner.idle();
    const run = [...runner.store.runs.values()].find((r) => r.repo === p.repo && r.event === 'pull_request')!;
    expect(run.conclusion, runner.logs(run.id)).toBe('success');
    const onHead = (await alice.rest.checks.listForRef({ ...p, ref: pull.head.sha })).data.check_runs;
    expect(onHead.map((c) => [c.name, c.app?.slug, c.check_suite?.id])).toEqual([['test', 'github-actions', run.checkSuiteId]]);
    expect((await alice.rest.checks.getSuite({ ...p, check_suite_id: run.checkSuiteId })).data.head_branch).toBe('feature');
    expect((await alice.rest.checks.listForRef({ ...p, ref: run.headSha })).data.check_runs).toEqual([]);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);
});
