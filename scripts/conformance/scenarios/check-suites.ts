/** Check suites: one per app per commit (FIDELITY.md), and which branch a suite names (readings.checkSuiteHeadBranch). */
import { must } from '../observe.ts';
import type { Scenario } from '../types.ts';
import { commitOn, defaultBranch, PREFIX, scratchCommit, scratchRef } from './support.ts';

/** What both suite scenarios call: a scratch commit and branches, check runs, the suite. */
const SUITE_ROUTES = [
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'POST /repos/{owner}/{repo}/git/trees',
  'POST /repos/{owner}/{repo}/git/commits',
  'POST /repos/{owner}/{repo}/git/refs',
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
  'POST /repos/{owner}/{repo}/check-runs',
  'GET /repos/{owner}/{repo}/check-suites/{check_suite_id}',
];

export const oneSuitePerApp: Scenario = {
  name: 'check suites per app',
  assumption: { row: 'One check suite per app per commit' },
  claim: 'two check runs of the App on one commit: one suite, app is the App',
  needs: ['app'],
  routes: SUITE_ROUTES,
  requests: 10,
  async run(ctx) {
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const { sha } = await scratchCommit(ctx, app, 'suites');
    const runs = [];
    for (const name of ['one', 'two']) {
      runs.push(await must(app.request('POST /repos/{owner}/{repo}/check-runs', { owner, repo, name: `${PREFIX} ${name}`, head_sha: sha, status: 'completed', conclusion: 'neutral' }), 'creating a check run'));
    }
    const suiteIds = [...new Set(runs.map((r) => r.check_suite?.id))];
    const suite = await must(app.request('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', { owner, repo, check_suite_id: suiteIds[0]! }), 'reading the suite');
    const ownApp = suite.app?.id === runs[0]!.app?.id;
    return {
      answer: `two check runs of the App on one commit: ${suiteIds.length === 1 ? 'one suite' : `${suiteIds.length} suites`}, app is ${ownApp ? 'the App' : (suite.app?.slug ?? 'none')}`,
      // Which branch a suite names when its commit is on a scratch branch only: shown for checkSuiteHeadBranch.
      detail: `head_branch ${JSON.stringify(suite.head_branch)}`,
    };
  },
};

/**
 * readings.checkSuiteHeadBranch: which branch an app's check suite names. The commit is pushed to
 * a branch late in name order first, then a branch early in name order is made at it too; then the
 * App's first check run makes the suite: `pushed-branch` names the first, `first-branch` the
 * second, `null` none.
 */
export const checkSuiteHeadBranch: Scenario = {
  name: 'the head_branch of a check suite',
  assumption: { reading: 'checkSuiteHeadBranch' },
  needs: ['app'],
  routes: SUITE_ROUTES,
  requests: 12,
  async run(ctx) {
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const base = await defaultBranch(ctx, app);
    const sha = await commitOn(ctx, app, base.sha, { [`${PREFIX}/head-branch-${ctx.id}.txt`]: 'head branch\n' }, `${PREFIX}: head branch`);
    const pushed = `${PREFIX}/zz-pushed-${ctx.id}`;
    const early = `${PREFIX}/aa-early-${ctx.id}`;
    await scratchRef(ctx, app, `refs/heads/${pushed}`, sha);
    await scratchRef(ctx, app, `refs/heads/${early}`, sha);
    const run = await must(app.request('POST /repos/{owner}/{repo}/check-runs', { owner, repo, name: `${PREFIX} head branch`, head_sha: sha, status: 'completed', conclusion: 'neutral' }), 'creating a check run');
    const suite = await must(app.request('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', { owner, repo, check_suite_id: run.check_suite!.id }), 'reading the suite');
    const named = suite.head_branch ?? null;
    const reading = named === null ? 'null' : named === pushed ? 'pushed-branch' : named === early ? 'first-branch' : undefined;
    return { answer: `head_branch ${named === null ? 'null' : named === pushed ? 'the branch pushed first' : named === early ? 'the first branch by name' : JSON.stringify(named)}`, ...(reading === undefined ? {} : { reading }) };
  },
};
