// Attack: CI that is not the run's makes its `checks` gate green. The run branch is public, so
// anyone can open a pull request from a fork whose branch is the very same commit — even named
// `baton/<run>` — and the repository's `pull_request` workflow runs for it here, reporting check
// runs on the run head's commit under the names the gate waits for. A writer's workflow run on
// another branch at the same commit does the same. Only the run's own suites count
// (src/hosts/github/suite-owner.ts): the gate waits for the run's own CI, whichever branch name a
// fork's suite carries (readings.ts, `forkSuiteHeadBranch`), events and sweeps alike.
import { afterEach, describe, expect, it } from 'vitest';
import { openForkPullRequest } from '../emulator/forks.ts';
import { READING_VALUES } from '../emulator/readings.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
  - id: ci
    checks: { names: [test] }
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

/** The run's CI: run by a maintainer on the run branch (so the test decides when it is green). */
const CI = `name: CI
on: workflow_dispatch
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: test -f src/fix.txt
`;

/** The repository's pull request checks: a job also named `test`, green for any pull request. */
const PR_CHECKS = `name: PR checks
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo "lint only"
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('security: CI that is not the run’s own', () => {
  it.each(READING_VALUES.forkSuiteHeadBranch)(
    'a green check run from a fork pull request at the run head or from another branch does not pass the gate; the run’s own green CI does (fork suite head_branch: %s)',
    async (forkSuiteHeadBranch) => {
      h = await startHarness({
        files: { '.agents/workflows/quick.yml': QUICK, '.github/workflows/ci.yml': CI, '.github/workflows/pr.yml': PR_CHECKS },
        agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] },
        triggerOnWebhooks: true,
        readings: { forkSuiteHeadBranch },
      });
      const alice = h.as('alice');
      const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data.number;
      await alice.rest.issues.addLabels({ ...o, issue_number: issue, labels: ['baton:quick'] });
      await h.settle();
      const runId = `quick-${issue}-1`;
      expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
      const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;

      // A fork pushes the run head as its own `baton/<run>` and opens a pull request: PR checks runs here.
      await openForkPullRequest(h.emu, { ...o, fork: 'mallory', branch: `baton/${runId}`, sha: head, title: 'Innocent change' });
      // A writer's run of CI on another branch at the same commit.
      await alice.rest.git.createRef({ ...o, ref: 'refs/heads/other', sha: head });
      await alice.rest.actions.createWorkflowDispatch({ ...o, workflow_id: 'ci.yml', ref: 'other' });
      await h.settle();
      const foreign = [...h.runner.store.runs.values()].filter((r) => (r.pullHeadSha ?? r.headSha) === head && r.conclusion === 'success');
      expect(foreign.map((r) => [r.workflowName, r.headBranch, r.headRepository?.full_name ?? 'acme/widgets']).sort()).toEqual([
        ['CI', 'other', 'acme/widgets'],
        ['PR checks', `baton/${runId}`, 'mallory/widgets'],
      ]);
      const green = (await alice.rest.checks.listForRef({ ...o, ref: head, filter: 'all' })).data.check_runs.filter((c) => c.name === 'test');
      expect(green.map((c) => c.conclusion)).toEqual(['success', 'success']);
      // Neither the events nor a sweep (which reads every check run at the head) take them.
      await h.app.sweep();
      await h.settle();
      expect(await h.record(issue)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);

      // The run's own CI, on the run branch: green, and the run goes on.
      await alice.rest.actions.createWorkflowDispatch({ ...o, workflow_id: 'ci.yml', ref: `baton/${runId}` });
      await h.settle();
      const record = await h.record(issue);
      expect(record, record).toContain(`run \`${runId}\` — succeeded`);
      expect(h.runner.errors).toEqual([]);
      h.emu.assertNoViolations();
    },
    120_000,
  );
});
