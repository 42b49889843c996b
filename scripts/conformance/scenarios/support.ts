/** Steps several scenarios share: reading the default branch, scratch refs and commits, each undone. */
import type { Octokit } from '@octokit/rest';
import { attempt, must, show } from '../observe.ts';
import type { ScenarioContext } from '../types.ts';

/** Everything the kit names starts with this, so a leftover is easy to find and remove. */
export const PREFIX = 'baton-conformance';

export async function defaultBranch(ctx: ScenarioContext, octokit: Octokit): Promise<{ name: string; sha: string }> {
  const { owner, repo } = ctx.target;
  const repository = await must(octokit.request('GET /repos/{owner}/{repo}', { owner, repo }), 'reading the repository');
  const ref = await must(octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner, repo, ref: `heads/${repository.default_branch}` }), 'reading the default branch');
  return { name: repository.default_branch, sha: ref.object.sha };
}

/** An issue of the kit's own, closed again after the scenario (GitHub deletes no issue through the API). */
export async function scratchIssue(ctx: ScenarioContext, octokit: Octokit, closer: Octokit = octokit): Promise<{ number: number }> {
  const { owner, repo } = ctx.target;
  const issue = await must(octokit.request('POST /repos/{owner}/{repo}/issues', { owner, repo, title: `${PREFIX} scratch issue ${ctx.id} (closed by the kit)` }), 'opening an issue');
  ctx.cleanup(`issue #${issue.number}`, () =>
    closer.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: issue.number, state: 'closed', state_reason: 'not_planned' }),
  );
  return issue;
}

/** A commit on `parent` that writes `files` (null removes one); nothing points at it yet. */
export async function commitOn(ctx: ScenarioContext, octokit: Octokit, parent: string, files: Record<string, string | null>, message: string): Promise<string> {
  const { owner, repo } = ctx.target;
  const tree = Object.entries(files).map(([path, content]) =>
    content === null ? { path, mode: '100644' as const, type: 'blob' as const, sha: null } : { path, mode: '100644' as const, type: 'blob' as const, content },
  );
  const made = await must(octokit.request('POST /repos/{owner}/{repo}/git/trees', { owner, repo, base_tree: parent, tree }), 'creating a tree');
  const commit = await must(octokit.request('POST /repos/{owner}/{repo}/git/commits', { owner, repo, message, tree: made.sha, parents: [parent] }), 'creating a commit');
  return commit.sha;
}

/** Creates `ref` (full name) at `sha` and registers its deletion. */
export async function scratchRef(ctx: ScenarioContext, octokit: Octokit, ref: string, sha: string): Promise<string> {
  const { owner, repo } = ctx.target;
  await must(octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner, repo, ref, sha }), `creating ${ref}`);
  deleteRefLater(ctx, octokit, ref);
  return ref;
}

export function deleteRefLater(ctx: ScenarioContext, octokit: Octokit, ref: string): void {
  const { owner, repo } = ctx.target;
  ctx.cleanup(ref, async () => {
    const deleted = await attempt(octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { owner, repo, ref: ref.replace(/^refs\//, '') }));
    // Gone already (the scenario deleted it itself) is what cleanup wants.
    if (!deleted.ok && !(deleted.status === 422 && /does not exist/i.test(deleted.message))) throw new Error(show(deleted));
  });
}

/** A commit of its own on a scratch branch (`refs/heads/baton-conformance/<what>-<id>`): check runs go there, not on main. */
export async function scratchCommit(ctx: ScenarioContext, octokit: Octokit, what: string): Promise<{ sha: string; branch: string }> {
  const base = await defaultBranch(ctx, octokit);
  const sha = await commitOn(ctx, octokit, base.sha, { [`${PREFIX}/${what}-${ctx.id}.txt`]: `${what}\n` }, `${PREFIX}: ${what}`);
  const branch = `${PREFIX}/${what}-${ctx.id}`;
  await scratchRef(ctx, octokit, `refs/heads/${branch}`, sha);
  return { sha, branch };
}

/**
 * The maintainer adds a workflow file to the default branch (a fast-forward), and registers a
 * forward commit that removes it again: history is kept, nothing is force-pushed. This is why
 * the kit needs a dedicated sandbox repository.
 */
export async function changeDefaultWorkflows(ctx: ScenarioContext, maintainer: Octokit): Promise<{ before: string; after: string; branch: string }> {
  return addDefaultWorkflows(ctx, maintainer, { [`${PREFIX}-${ctx.id}.yml`]: 'on: workflow_dispatch\njobs:\n  noop:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n' }, 'a workflow change on the default branch');
}

/**
 * Commits `workflows` (file name → YAML, under `.github/workflows/`) to the default branch as the
 * maintainer, and registers the forward commit that removes them again. `workflow_dispatch` and
 * `workflow_run` only start workflows the default branch has.
 */
export async function addDefaultWorkflows(ctx: ScenarioContext, maintainer: Octokit, workflows: Record<string, string>, why: string): Promise<{ before: string; after: string; branch: string }> {
  const { owner, repo } = ctx.target;
  const base = await defaultBranch(ctx, maintainer);
  const files = Object.fromEntries(Object.entries(workflows).map(([file, yaml]) => [`.github/workflows/${file}`, yaml]));
  const paths = Object.keys(files);
  const after = await commitOn(ctx, maintainer, base.sha, files, `${PREFIX}: ${why}`);
  await must(maintainer.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { owner, repo, ref: `heads/${base.name}`, sha: after }), 'moving the default branch');
  ctx.cleanup(`${paths.join(', ')} on ${base.name}`, async () => {
    const now = await defaultBranch(ctx, maintainer);
    const revert = await commitOn(ctx, maintainer, now.sha, Object.fromEntries(paths.map((path) => [path, null])), `${PREFIX}: remove ${paths.join(', ')} again`);
    await must(maintainer.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { owner, repo, ref: `heads/${base.name}`, sha: revert }), 'moving the default branch back');
  });
  return { before: base.sha, after, branch: base.name };
}
