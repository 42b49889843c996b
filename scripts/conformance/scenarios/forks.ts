/**
 * readings.forkSuiteHeadBranch: which branch the check suite of a fork's pull request run names.
 * A `pull_request` workflow is on the default branch; a fork's branch at a scratch commit opens a
 * pull request; the run it starts here has a check suite whose `head_branch` is the fork's branch
 * (`fork-branch`) or null (`null`, as the REST reference's note on forks says).
 */
import { attempt, show } from '../observe.ts';
import { Skip, type Scenario } from '../types.ts';
import { addDefaultWorkflows, commitOn, defaultBranch, deleteRefLater, PREFIX, scratchCommit } from './support.ts';
import { deleteRunsLater, RUN_ROUTES, runOf, RUN_SECONDS } from './runs.ts';

export const forkSuiteHeadBranch: Scenario = {
  name: "the head_branch of a fork pull request run's check suite",
  assumption: { reading: 'forkSuiteHeadBranch' },
  needs: ['maintainer'],
  routes: [
    'GET /repos/{owner}/{repo}',
    'GET /repos/{owner}/{repo}/git/ref/{ref}',
    'POST /repos/{owner}/{repo}/git/trees',
    'POST /repos/{owner}/{repo}/git/commits',
    'POST /repos/{owner}/{repo}/git/refs',
    'PATCH /repos/{owner}/{repo}/git/refs/{ref}',
    'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
    'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    'GET /repos/{owner}/{repo}/check-suites/{check_suite_id}',
    ...RUN_ROUTES,
  ],
  // Setup 6, ~6 polls while the run runs, the suite 1, cleanup ~8.
  requests: 21,
  async run(ctx) {
    const open = ctx.target.openForkPullRequest;
    if (open === undefined) throw new Skip('opening a pull request from a fork needs a second account with a fork of the sandbox, which the kit does not hold');
    const maintainer = ctx.as('maintainer');
    const { owner, repo } = ctx.target;
    const workflow = `${PREFIX}-fork-${ctx.id}.yml`;
    const { branch: base } = await addDefaultWorkflows(ctx, maintainer, { [workflow]: `name: ${PREFIX} fork ${ctx.id}\non: pull_request\njobs:\n  noop:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n` }, "a pull_request workflow for a fork's pull request");
    deleteRunsLater(ctx, maintainer, [workflow]);
    const { sha } = await scratchCommit(ctx, maintainer, 'fork');
    const branch = `${PREFIX}/fork-${ctx.id}`;
    const number = await open({ branch, sha, base, title: `${PREFIX} fork ${ctx.id}` });
    ctx.cleanup(`pull request #${number}`, () => maintainer.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { owner, repo, pull_number: number, state: 'closed' }));
    const run = await runOf(ctx, maintainer, workflow, RUN_SECONDS, (r) => r.event === 'pull_request' && r.status === 'completed');
    if (run?.check_suite_id === undefined) return { answer: 'no run for the pull request', unobserved: true };
    const suite = await attempt(maintainer.request('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', { owner, repo, check_suite_id: run.check_suite_id }));
    if (!suite.ok) throw new Error(`reading the suite: ${show(suite)}`);
    const named = suite.data.head_branch ?? null;
    const reading = named === null ? 'null' : named === branch ? 'fork-branch' : undefined;
    return { answer: `head_branch ${named === null ? 'null' : named === branch ? "the fork's branch" : JSON.stringify(named)}`, ...(reading === undefined ? {} : { reading }), detail: `run head_sha ${run.head_sha === sha ? 'the head' : run.head_sha}` };
  },
};

/**
 * readings.forkShaRef (ISSUE U1): a ref of the repository at a commit only a fork has. A fork's
 * branch at a commit on no branch of the repository opens a pull request (GitHub keeps it as
 * `refs/pull/<n>/head`); then the actor (baton's App, without `workflows`) creates a ref there:
 * made (`accepted`), 422 "Reference does not exist" (`does-not-exist`), or the workflow-file
 * rule's refusal, 403 or 422 "Reference update failed" (`workflow-rule`). On GitHub the fork's
 * commit must be pushed from a second account, which the kit does not hold.
 */
export const forkShaRef: Scenario = {
  name: 'a ref at a commit only a fork has',
  assumption: { reading: 'forkShaRef' },
  needs: ['maintainer', 'actor'],
  routes: ['GET /repos/{owner}/{repo}', 'GET /repos/{owner}/{repo}/git/ref/{ref}', 'POST /repos/{owner}/{repo}/git/trees', 'POST /repos/{owner}/{repo}/git/commits', 'POST /repos/{owner}/{repo}/git/refs', 'DELETE /repos/{owner}/{repo}/git/refs/{ref}', 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}'],
  requests: 8,
  async run(ctx) {
    const open = ctx.target.openForkPullRequest;
    if (open === undefined) throw new Skip("a commit only a fork has needs a second account with a fork of the sandbox, which the kit does not hold: push a commit to the fork, open a pull request, then POST git/refs at its head with the App's token");
    const maintainer = ctx.as('maintainer');
    const { owner, repo } = ctx.target;
    const base = await defaultBranch(ctx, maintainer);
    const sha = await commitOn(ctx, maintainer, base.sha, { [`${PREFIX}/fork-only-${ctx.id}.txt`]: 'fork\n' }, `${PREFIX}: a fork's commit`);
    const number = await open({ branch: `${PREFIX}/fork-only-${ctx.id}`, sha, base: base.name, title: `${PREFIX} fork-only ${ctx.id}` });
    ctx.cleanup(`pull request #${number}`, () => maintainer.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { owner, repo, pull_number: number, state: 'closed' }));
    const ref = `refs/baton/conformance-fork-${ctx.id}`;
    const made = await attempt(ctx.as('actor').request('POST /repos/{owner}/{repo}/git/refs', { owner, repo, ref, sha }));
    if (made.ok) deleteRefLater(ctx, maintainer, ref);
    const answer = show(made);
    const reading = made.ok ? 'accepted' : /does not exist/i.test(answer) ? 'does-not-exist' : made.status === 403 || /update failed/i.test(answer) ? 'workflow-rule' : undefined;
    return { answer, ...(reading === undefined ? {} : { reading }) };
  },
};
