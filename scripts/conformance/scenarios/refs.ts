/** Refs baton's leases live in: a namespace of its own, and what the loser of a create race is told. */
import { attempt, show } from '../observe.ts';
import type { Scenario } from '../types.ts';
import { addDefaultWorkflows, commitOn, defaultBranch, deleteRefLater, PREFIX, scratchRef } from './support.ts';
import { APPEAR_SECONDS, deleteRunsLater, RUN_ROUTES, runOf } from './runs.ts';

const CREATE = 'POST /repos/{owner}/{repo}/git/refs';
const GET = 'GET /repos/{owner}/{repo}/git/ref/{ref}';
const DELETE = 'DELETE /repos/{owner}/{repo}/git/refs/{ref}';

export const customRefNamespace: Scenario = {
  name: 'custom ref namespace',
  assumption: { row: 'Custom ref namespaces' },
  claim: 'create 201, read 200, delete 204',
  needs: ['actor'],
  routes: ['GET /repos/{owner}/{repo}', GET, CREATE, DELETE],
  requests: 5,
  async run(ctx) {
    const octokit = ctx.as('actor');
    const { owner, repo } = ctx.target;
    const head = await defaultBranch(ctx, octokit);
    const ref = `refs/baton/leases/conformance-${ctx.id}`;
    const created = await attempt(octokit.request(CREATE, { owner, repo, ref, sha: head.sha }));
    if (created.ok) deleteRefLater(ctx, octokit, ref);
    const read = await attempt(octokit.request(GET, { owner, repo, ref: ref.slice('refs/'.length) }));
    const deleted = created.ok ? await attempt(octokit.request(DELETE, { owner, repo, ref: ref.slice('refs/'.length) })) : undefined;
    return { answer: `create ${show(created)}, read ${show(read)}${deleted === undefined ? '' : `, delete ${show(deleted)}`}` };
  },
};

/** Rounds of two simultaneous creates: a loser that ever gets "Reference update failed" is the reading's second value. */
const ROUNDS = 3;

export const refCreateRace: Scenario = {
  name: 'two concurrent creates of one ref',
  assumption: { reading: 'refCreateRace' },
  needs: ['actor'],
  routes: ['GET /repos/{owner}/{repo}', GET, CREATE, DELETE],
  requests: 2 + ROUNDS * 3,
  async run(ctx) {
    const octokit = ctx.as('actor');
    const { owner, repo } = ctx.target;
    const head = await defaultBranch(ctx, octokit);
    const losers: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ref = `refs/baton/leases/race-${ctx.id}-${round}`;
      const both = await Promise.all([0, 1].map(() => attempt(octokit.request(CREATE, { owner, repo, ref, sha: head.sha }))));
      if (both.some((a) => a.ok)) deleteRefLater(ctx, octokit, ref);
      const won = both.filter((a) => a.ok).length;
      if (won !== 1) return { answer: `round ${round}: ${both.map(show).join(' and ')} (not one winner)` };
      losers.push(show(both.find((a) => !a.ok)!));
    }
    const seen = [...new Set(losers)];
    const reading = seen.includes('422 Reference update failed') ? 'update-failed' : seen.every((l) => l === '422 Reference already exists') ? 'already-exists' : undefined;
    return { answer: `loser: ${seen.join(' / ')}`, ...(reading === undefined ? {} : { reading }) };
  },
};

/**
 * readings.customRefPushRuns: does a ref outside branches and tags start `on: push` workflows?
 * The maintainer adds a push workflow to the default branch; the actor (baton's App, whose
 * events start workflows) creates `refs/baton/…` at a commit no branch has; a run of the workflow
 * at that commit is `fires`, none within the time a run takes to appear is `silent`.
 */
export const customRefPushRuns: Scenario = {
  name: 'push workflows for a custom ref',
  assumption: { reading: 'customRefPushRuns' },
  needs: ['maintainer', 'actor'],
  routes: ['GET /repos/{owner}/{repo}', GET, 'POST /repos/{owner}/{repo}/git/trees', 'POST /repos/{owner}/{repo}/git/commits', CREATE, 'PATCH /repos/{owner}/{repo}/git/refs/{ref}', DELETE, ...RUN_ROUTES],
  // Setup 6, polls ~10 while a run may appear, cleanup ~6.
  requests: 22,
  async run(ctx) {
    const maintainer = ctx.as('maintainer');
    const workflow = `${PREFIX}-custom-push-${ctx.id}.yml`;
    const { after } = await addDefaultWorkflows(ctx, maintainer, { [workflow]: `name: ${PREFIX} custom push ${ctx.id}\non: push\njobs:\n  noop:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n` }, 'a push workflow for a custom ref');
    deleteRunsLater(ctx, maintainer, [workflow]);
    const sha = await commitOn(ctx, maintainer, after, { [`${PREFIX}/custom-push-${ctx.id}.txt`]: 'custom\n' }, `${PREFIX}: on a custom ref only`);
    await scratchRef(ctx, ctx.as('actor'), `refs/baton/${PREFIX}-push-${ctx.id}`, sha);
    const run = await runOf(ctx, maintainer, workflow, APPEAR_SECONDS, (r) => r.event === 'push' && r.head_sha === sha);
    return run ? { answer: 'a push run at the commit', reading: 'fires' } : { answer: 'no run', reading: 'silent' };
  },
};
