// A pull request a job opens with its GITHUB_TOKEN, under each reading of
// `tokenPullRequestRuns` (readings.ts): GitHub's current wording creates its `pull_request`
// runs waiting for approval (completed, `action_required`, no jobs, their suite likewise)
// until a person approves them; the older wording starts none.
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator.ts';
import type { Readings } from '../readings.ts';
import { withActions, type ActionsRunner } from './index.ts';

const OPENER = `name: opener
on: workflow_dispatch
permissions: { contents: write, pull-requests: write }
jobs:
  open:
    runs-on: ubuntu-latest
    steps:
      - run: |
          api() { curl -sSf -H "authorization: token \${{ secrets.GITHUB_TOKEN }}" -H 'content-type: application/json' "$@"; }
          api -X POST -d "{\\"ref\\":\\"refs/heads/bot\\",\\"sha\\":\\"$GITHUB_SHA\\"}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/git/refs"
          api -X PUT -d '{"message":"bot change","content":"aGkK","branch":"bot"}' "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/contents/bot.txt"
          api -X POST -d '{"title":"Bot PR","head":"bot","base":"main"}' "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/pulls"
`;

const CI = `name: CI
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo tested
`;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function openedByToken(reading: Readings['tokenPullRequestRuns']): Promise<{ emu: Emulator; runner: ActionsRunner; alice: Octokit; head: string }> {
  const actions = withActions({ triggerOnWebhooks: true });
  emu = await startEmulator({ plugins: [actions.plugin], readings: { tokenPullRequestRuns: reading } });
  await emu.createRepo('acme', 'widgets', { 'README.md': '# w\n', '.github/workflows/opener.yml': OPENER, '.github/workflows/ci.yml': CI });
  emu.store.setRole('acme', 'widgets', 'alice', 'admin');
  emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
  const alice = new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken('alice') });
  const o = { owner: 'acme', repo: 'widgets' };
  const run = (await alice.rest.actions.createWorkflowDispatch({ ...o, workflow_id: 'opener.yml', ref: 'main', return_run_details: true } as never)).data as unknown as { workflow_run_id: number };
  await actions.runner.idle();
  expect(actions.runner.store.runs.get(run.workflow_run_id)!.conclusion, actions.runner.logs(run.workflow_run_id)).toBe('success');
  const pr = (await alice.rest.pulls.list({ ...o, state: 'open' })).data[0]!;
  expect(pr.user?.login).toBe('github-actions[bot]');
  return { emu, runner: actions.runner, alice, head: pr.head.sha };
}

const ciRuns = (runner: ActionsRunner) => [...runner.store.runs.values()].filter((r) => r.workflowName === 'CI');

describe('a pull request opened with a GITHUB_TOKEN', () => {
  it("action-required: its pull_request run is created waiting for approval — completed, action_required, no jobs, its suite likewise — and runs once approved", async () => {
    const { emu, runner, alice, head } = await openedByToken('action-required');
    const o = { owner: 'acme', repo: 'widgets' };
    const [ci, ...more] = ciRuns(runner);
    expect(more).toEqual([]);
    expect(ci).toMatchObject({ event: 'pull_request', status: 'completed', conclusion: 'action_required', jobs: [] });
    const listed = (await alice.rest.actions.getWorkflowRun({ ...o, run_id: ci!.id })).data;
    expect(listed).toMatchObject({ status: 'completed', conclusion: 'action_required' });
    expect((await alice.rest.checks.listForRef({ ...o, ref: head })).data.check_runs).toEqual([]);
    const suite = (await alice.rest.checks.getSuite({ ...o, check_suite_id: ci!.checkSuiteId })).data;
    expect([suite.app?.slug, suite.head_sha, suite.status, suite.conclusion, suite.latest_check_runs_count]).toEqual(['github-actions', head, 'completed', 'action_required', 0]);
    const hooks = emu.webhooks.deliveries.filter((d) => d.event === 'workflow_run' && (d.payload.workflow_run as { id: number }).id === ci!.id);
    expect(hooks.map((d) => [d.payload.action, (d.payload.workflow_run as { conclusion: string }).conclusion])).toEqual([
      ['requested', 'action_required'],
      ['completed', 'action_required'],
    ]);
    expect(emu.webhooks.deliveries.some((d) => d.event === 'check_suite' && (d.payload.check_suite as { conclusion: string }).conclusion === 'action_required')).toBe(true);

    // A person selects "Approve workflows to run": the same run goes, its job becomes a check run.
    expect(await runner.approve(ci!.id)).toBe(true);
    await runner.idle();
    expect(ci).toMatchObject({ status: 'completed', conclusion: 'success', runAttempt: 1 });
    const checks = (await alice.rest.checks.listForRef({ ...o, ref: head })).data.check_runs;
    expect(checks.map((c) => [c.name, c.conclusion])).toEqual([['test', 'success']]);
    expect(await runner.approve(ci!.id)).toBe(false);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('none: no pull_request run at all, the event listed as skipped', async () => {
    const { runner } = await openedByToken('none');
    expect(ciRuns(runner)).toEqual([]);
    expect(runner.skippedTriggers).toContainEqual(expect.objectContaining({ event: 'pull_request', action: 'opened', sender: 'github-actions[bot]', workflows: ['.github/workflows/ci.yml'] }));
    expect(runner.errors).toEqual([]);
  }, 60_000);
});
