/**
 * Behaviours of GitHub Actions baton relies on, asked by running workflows for real in the
 * sandbox: a maintainer commits the scenario's workflows to the default branch (only workflows
 * the default branch has can be dispatched or follow a `workflow_run`), dispatches one, watches
 * what follows through the REST API, then deletes the runs and removes the workflows again.
 */
import { unzipFiles } from '../../../tests/emulator/actions/zip.ts';
import { attempt, must, show } from '../observe.ts';
import { Skip, type Scenario } from '../types.ts';
import { addDefaultWorkflows, deleteRefLater, PREFIX } from './support.ts';
import { API_FUNCTION, APPEAR_SECONDS, deleteRunsLater, dispatchAndWait, failureOf, RUN_ROUTES, runOf, RUN_SECONDS, type Run } from './runs.ts';

const SETUP_ROUTES = [
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'POST /repos/{owner}/{repo}/git/trees',
  'POST /repos/{owner}/{repo}/git/commits',
  'PATCH /repos/{owner}/{repo}/git/refs/{ref}',
];

/** A job that only succeeds. */
const NOOP_JOB = `jobs:
  noop:
    runs-on: ubuntu-latest
    steps:
      - run: "true"
`;

const NOT_PERMITTED = /not permitted to create or approve pull requests/i;

/**
 * A job opens a pull request with its GITHUB_TOKEN (a branch, a commit, the pull request); a
 * `pull_request` workflow is on the default branch. Does that workflow get a run for the pull
 * request, and how does it stand? Shown too: the run's check suite and the check runs on the
 * pull request's head — `action_required` as a checks gate sees it.
 */
export const tokenPullRequestRuns: Scenario = {
  name: 'pull_request runs of a pull request a GITHUB_TOKEN opened',
  assumption: { reading: 'tokenPullRequestRuns' },
  needs: ['maintainer'],
  routes: [
    ...SETUP_ROUTES,
    ...RUN_ROUTES,
    'GET /repos/{owner}/{repo}/pulls',
    'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
    'GET /repos/{owner}/{repo}/check-suites/{check_suite_id}',
    'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  ],
  // Setup 5, dispatch 1, ~6 polls while the job runs, the PR 1, ~3 polls, 3 reads, cleanup ~12; up to 12 polls more when no run comes.
  requests: 31,
  async run(ctx) {
    const maintainer = ctx.as('maintainer');
    const { owner, repo } = ctx.target;
    const opener = `${PREFIX}-open-${ctx.id}.yml`;
    const ci = `${PREFIX}-ci-${ctx.id}.yml`;
    const branch = `${PREFIX}/tpr-${ctx.id}`;
    const { branch: base } = await addDefaultWorkflows(
      ctx,
      maintainer,
      {
        [opener]: `name: ${PREFIX} opener ${ctx.id}
on: workflow_dispatch
permissions:
  contents: write
  pull-requests: write
jobs:
  open:
    runs-on: ubuntu-latest
    steps:
      - env:
          TOKEN: \${{ secrets.GITHUB_TOKEN }}
          BRANCH: ${branch}
          FILE: ${PREFIX}/tpr-${ctx.id}.txt
        run: |
          ${API_FUNCTION}
          api -X POST -d "{\\"ref\\":\\"refs/heads/$BRANCH\\",\\"sha\\":\\"$GITHUB_SHA\\"}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/git/refs"
          api -X PUT -d "{\\"message\\":\\"${PREFIX}: a change\\",\\"content\\":\\"aGkK\\",\\"branch\\":\\"$BRANCH\\"}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/contents/$FILE"
          api -X POST -d "{\\"title\\":\\"${PREFIX} ${ctx.id}\\",\\"head\\":\\"$BRANCH\\",\\"base\\":\\"$GITHUB_REF_NAME\\"}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/pulls"
`,
        [ci]: `name: ${PREFIX} ci ${ctx.id}\non: pull_request\n${NOOP_JOB}`,
      },
      'workflows: a job opens a pull request; a pull_request workflow',
    );
    deleteRunsLater(ctx, maintainer, [opener, ci]);
    deleteRefLater(ctx, maintainer, `refs/heads/${branch}`);
    ctx.cleanup(`the pull request from ${branch}`, async () => {
      const open = await must(maintainer.request('GET /repos/{owner}/{repo}/pulls', { owner, repo, head: `${owner}:${branch}`, state: 'open' }), 'finding the pull request');
      for (const pr of open) await must(maintainer.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { owner, repo, pull_number: pr.number, state: 'closed' }), `closing #${pr.number}`);
    });

    const opened = await dispatchAndWait(ctx, maintainer, opener, base);
    if (opened.conclusion !== 'success') {
      const why = await failureOf(ctx, maintainer, opened);
      if (NOT_PERMITTED.test(why)) throw new Skip('the sandbox does not let GitHub Actions create pull requests: turn on Settings › Actions › General › "Allow GitHub Actions to create and approve pull requests"');
      throw new Error(`the job opening the pull request failed: ${why}`);
    }
    const [pr] = await must(maintainer.request('GET /repos/{owner}/{repo}/pulls', { owner, repo, head: `${owner}:${branch}`, state: 'all' }), 'finding the pull request');
    if (pr === undefined) throw new Error(`the job succeeded but no pull request from ${branch} is listed`);
    // A run held for approval stands still; one that runs is waited for until it completes.
    const held = (r: Run) => r.conclusion === 'action_required' || r.status === 'action_required' || r.status === 'waiting';
    const run = await runOf(ctx, maintainer, ci, APPEAR_SECONDS, (r) => r.event === 'pull_request' && (held(r) || r.status === 'completed'));
    const by = `opened by ${pr.user?.login ?? 'nobody'}`;
    if (run === undefined) return { answer: 'no pull_request run', reading: 'none', detail: by };
    const { total_count: jobs } = await must(maintainer.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { owner, repo, run_id: run.id }), 'listing the jobs');
    const checks = await must(maintainer.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner, repo, ref: pr.head.sha }), 'listing the check runs');
    const suite = run.check_suite_id === undefined ? null : await attempt(maintainer.request('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', { owner, repo, check_suite_id: run.check_suite_id }));
    const suiteText = suite === null ? 'no check suite' : suite.ok ? `suite of ${suite.data.app?.slug ?? 'no app'} ${suite.data.status}/${suite.data.conclusion}` : `suite: ${show(suite)}`;
    return {
      answer: `pull_request run ${run.status}/${run.conclusion}, ${jobs} jobs`,
      ...(held(run) ? { reading: 'action-required' } : {}),
      detail: `${by}; ${suiteText}; ${checks.total_count} check runs on the head`,
    };
  },
};

/**
 * A job dispatches a second workflow with its GITHUB_TOKEN (allowed: `workflow_dispatch` is
 * exempt from the rule that such events start nothing); a third follows the second by
 * `workflow_run`. Does the second's completion start the third?
 */
export const workflowRunAfterTokenDispatch: Scenario = {
  name: 'workflow_run after a run a GITHUB_TOKEN dispatched',
  assumption: { reading: 'workflowRunAfterTokenDispatch' },
  needs: ['maintainer'],
  routes: [...SETUP_ROUTES, ...RUN_ROUTES],
  // Setup 5, dispatch 1, ~6 + ~3 + ~3 polls, cleanup ~11; up to 12 polls more when the follower never starts.
  requests: 29,
  async run(ctx) {
    const maintainer = ctx.as('maintainer');
    const dispatcher = `${PREFIX}-dispatcher-${ctx.id}.yml`;
    const dispatched = `${PREFIX}-dispatched-${ctx.id}.yml`;
    const follower = `${PREFIX}-follower-${ctx.id}.yml`;
    const { branch: base } = await addDefaultWorkflows(
      ctx,
      maintainer,
      {
        [dispatcher]: `name: ${PREFIX} dispatcher ${ctx.id}
on: workflow_dispatch
permissions:
  actions: write
jobs:
  dispatch:
    runs-on: ubuntu-latest
    steps:
      - env:
          TOKEN: \${{ secrets.GITHUB_TOKEN }}
        run: |
          ${API_FUNCTION}
          api -X POST -d "{\\"ref\\":\\"$GITHUB_REF_NAME\\"}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/actions/workflows/${dispatched}/dispatches"
`,
        [dispatched]: `name: ${PREFIX} dispatched ${ctx.id}\non: workflow_dispatch\n${NOOP_JOB}`,
        [follower]: `name: ${PREFIX} follower ${ctx.id}\non:\n  workflow_run:\n    workflows: ["${PREFIX} dispatched ${ctx.id}"]\n    types: [completed]\n${NOOP_JOB}`,
      },
      'workflows: a job dispatches a workflow another follows by workflow_run',
    );
    deleteRunsLater(ctx, maintainer, [dispatcher, dispatched, follower]);

    const first = await dispatchAndWait(ctx, maintainer, dispatcher, base);
    if (first.conclusion !== 'success') throw new Error(`the job dispatching the workflow failed: ${await failureOf(ctx, maintainer, first)}`);
    const second = await runOf(ctx, maintainer, dispatched, RUN_SECONDS, (r) => r.status === 'completed');
    if (second === undefined) throw new Error(`the dispatched run did not complete within ${RUN_SECONDS} s`);
    const third = await runOf(ctx, maintainer, follower, APPEAR_SECONDS, () => true);
    const detail = `the dispatched run: ${second.event} by ${second.triggering_actor?.login ?? 'nobody'}, ${second.conclusion}`;
    return third === undefined ? { answer: 'silent', reading: 'silent', detail } : { answer: 'fires', reading: 'fires', detail: `${detail}; the follower: ${third.event}` };
  },
};

/**
 * actions/upload-artifact@v4 uploads one folder holding `visible.txt` and `.hidden` twice:
 * without and with `include-hidden-files: true`. Which files does each artifact's zip, as the
 * REST API serves it, hold?
 */
export const artifactHiddenFiles: Scenario = {
  name: 'hidden files in an uploaded artifact',
  assumption: { row: 'Hidden files in artifacts' },
  claim: 'default: visible.txt; include-hidden-files: .hidden, visible.txt',
  needs: ['maintainer'],
  routes: [...SETUP_ROUTES, ...RUN_ROUTES, 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', 'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}'],
  // Setup 5, dispatch 1, ~6 polls, the list 1, two downloads, cleanup ~7.
  requests: 22,
  async run(ctx) {
    const maintainer = ctx.as('maintainer');
    const { owner, repo } = ctx.target;
    const workflow = `${PREFIX}-artifacts-${ctx.id}.yml`;
    const { branch: base } = await addDefaultWorkflows(
      ctx,
      maintainer,
      {
        [workflow]: `name: ${PREFIX} artifacts ${ctx.id}
on: workflow_dispatch
jobs:
  upload:
    runs-on: ubuntu-latest
    steps:
      - run: |
          mkdir -p out
          echo visible > out/visible.txt
          echo hidden > out/.hidden
      - uses: actions/upload-artifact@v4
        with:
          name: default
          path: out
      - uses: actions/upload-artifact@v4
        with:
          name: include-hidden-files
          path: out
          include-hidden-files: true
`,
      },
      'a workflow uploading a folder with a hidden file',
    );
    deleteRunsLater(ctx, maintainer, [workflow]);

    const run = await dispatchAndWait(ctx, maintainer, workflow, base);
    if (run.conclusion !== 'success') throw new Error(`the uploading job failed: ${await failureOf(ctx, maintainer, run)}`);
    const { artifacts } = await must(maintainer.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner, repo, run_id: run.id }), 'listing the artifacts');
    const answers: string[] = [];
    for (const artifact of [...artifacts].sort((a, b) => a.name.localeCompare(b.name))) {
      const zip = await must(maintainer.request('GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { owner, repo, artifact_id: artifact.id, archive_format: 'zip' }), `downloading ${artifact.name}`);
      const files = [...unzipFiles(new Uint8Array(zip as ArrayBuffer)).keys()].sort();
      answers.push(`${artifact.name}: ${files.join(', ') || 'nothing'}`);
    }
    return { answer: answers.join('; ') || 'no artifact' };
  },
};
