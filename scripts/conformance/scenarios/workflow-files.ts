/**
 * The workflow-file rule as baton's App meets it (a token without `workflows`): where a change
 * to `.github/workflows/` is refused, and what a ref is compared with after the default branch
 * changed its workflow files.
 */
import { attempt, show } from '../observe.ts';
import { Skip, type Scenario, type ScenarioContext } from '../types.ts';
import { changeDefaultWorkflows, commitOn, defaultBranch, deleteRefLater, PREFIX, scratchRef } from './support.ts';

const TREES = 'POST /repos/{owner}/{repo}/git/trees';
const COMMITS = 'POST /repos/{owner}/{repo}/git/commits';
const REFS = 'POST /repos/{owner}/{repo}/git/refs';
const MOVE = 'PATCH /repos/{owner}/{repo}/git/refs/{ref}';
const READS = ['GET /repos/{owner}/{repo}', 'GET /repos/{owner}/{repo}/git/ref/{ref}'];
const DELETE = 'DELETE /repos/{owner}/{repo}/git/refs/{ref}';

/** The question only means something for a token without `workflows`. */
function requireNoWorkflowsPermission(ctx: ScenarioContext): void {
  const held = ctx.target.appPermissions.workflows;
  if (held !== undefined) throw new Skip(`the App holds workflows: ${held}; install it with app.yml's permissions`);
}

export const workflowRefusalAt: Scenario = {
  name: 'where a workflow-file change is refused',
  assumption: { reading: 'workflowRefusalAt' },
  needs: ['app'],
  routes: [...READS, TREES, COMMITS, REFS, DELETE],
  requests: 6,
  async run(ctx) {
    requireNoWorkflowsPermission(ctx);
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const base = await defaultBranch(ctx, app);
    const path = `.github/workflows/${PREFIX}-${ctx.id}.yml`;
    const tree = await attempt(app.request(TREES, { owner, repo, base_tree: base.sha, tree: [{ path, mode: '100644', type: 'blob', content: 'on: workflow_dispatch\njobs: {}\n' }] }));
    if (!tree.ok) return { answer: `trees: ${show(tree)}`, reading: 'trees' };
    const commit = await attempt(app.request(COMMITS, { owner, repo, message: `${PREFIX}: workflow change`, tree: tree.data.sha, parents: [base.sha] }));
    if (!commit.ok) return { answer: `commits: ${show(commit)}`, reading: 'commits' };
    const ref = `refs/heads/${PREFIX}/wf-${ctx.id}`;
    const created = await attempt(app.request(REFS, { owner, repo, ref, sha: commit.data.sha }));
    if (!created.ok) return { answer: `ref: ${show(created)}`, reading: 'ref' };
    deleteRefLater(ctx, app, ref);
    return { answer: 'accepted at trees, commits and ref' };
  },
};

/**
 * A branch made before the default branch changed its workflows moves by a commit of its own
 * that touches no workflow file: accepted (compared with its old value) or refused (compared
 * with the default branch's tip).
 */
export const refUpdateWorkflows: Scenario = {
  name: 'ref update after the default branch changed its workflows',
  assumption: { reading: 'refUpdateWorkflows' },
  needs: ['app', 'maintainer'],
  routes: [...READS, TREES, COMMITS, REFS, MOVE, DELETE],
  requests: 16,
  async run(ctx) {
    requireNoWorkflowsPermission(ctx);
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const base = await defaultBranch(ctx, app);
    const branch = await scratchRef(ctx, app, `refs/heads/${PREFIX}/upd-${ctx.id}`, base.sha);
    await changeDefaultWorkflows(ctx, ctx.as('maintainer'));
    const next = await commitOn(ctx, app, base.sha, { [`${PREFIX}/upd-${ctx.id}.txt`]: 'moved\n' }, `${PREFIX}: a change outside the workflows`);
    const moved = await attempt(app.request(MOVE, { owner, repo, ref: branch.slice('refs/'.length), sha: next }));
    if (moved.ok) return { answer: `move: ${show(moved)}`, reading: 'old-value' };
    const workflowRefusal = moved.status === 403 || /workflow/i.test(moved.message);
    return { answer: `move: ${show(moved)}`, ...(workflowRefusal ? { reading: 'default-branch' } : {}) };
  },
};

/** FIDELITY.md: a new ref is compared with the default branch's current tip, custom namespaces included. */
export const newRefAfterWorkflowChange: Scenario = {
  name: 'new ref on a commit without the default branch’s new workflow',
  assumption: { row: 'Workflow files through the Git Data API' },
  claim: 'refs/heads: 403 Resource not accessible by integration; refs/baton: 403 Resource not accessible by integration',
  needs: ['app', 'maintainer'],
  routes: [...READS, TREES, COMMITS, REFS, MOVE, DELETE],
  requests: 12,
  async run(ctx) {
    requireNoWorkflowsPermission(ctx);
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const { before } = await changeDefaultWorkflows(ctx, ctx.as('maintainer'));
    const answers: string[] = [];
    for (const ref of [`refs/heads/${PREFIX}/new-${ctx.id}`, `refs/baton/leases/${PREFIX}-new-${ctx.id}`]) {
      const created = await attempt(app.request(REFS, { owner, repo, ref, sha: before }));
      if (created.ok) deleteRefLater(ctx, app, ref);
      answers.push(`${ref.split('/').slice(0, 2).join('/')}: ${show(created)}`);
    }
    return { answer: answers.join('; ') };
  },
};
