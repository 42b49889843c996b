/**
 * GitHub protects `.github/workflows/`: a write that creates, changes or removes a
 * workflow file needs the `workflows` permission, which a `GITHUB_TOKEN` can never have
 * and an App has only when its manifest asks for it. Without it:
 * - a `git push` is rejected with "refusing to allow a GitHub App to create or update
 *   workflow `.github/workflows/x.yml` without `workflows` permission"
 *   (e.g. repo-sync/github-sync#23, peter-evans/create-pull-request#1234);
 * - through the Git Data API, where the refusal comes is not documented (readings.ts
 *   `workflowRefusalAt`, one value per report): `trees`, 403 "Resource not accessible by
 *   integration" already when the tree is created (anthropics/claude-code-action#29: POST
 *   git/trees with `.github/workflows/ci.yml`); `commits`, 404 "Not Found" when the commit is
 *   created (octokit/rest.js#368, a personal token without the workflow scope); `ref`, the tree
 *   and commit accepted and the ref write refused with 422. Under every reading a ref created or
 *   moved onto a commit whose workflow files differ (the ref's old commit, or the default branch
 *   for a new ref) is refused: 422 under `ref`, else 403;
 * - endpoints that write a commit themselves (merges, contents) answer with the
 *   push wording (KeisukeYamashita/auto-pull-request-merge#481).
 * The emulator authenticates no `git push` (pushes go to the bare repository directly),
 * so only the API paths carry the rule.
 */
import type { GitRepo } from '../git.ts';
import { HttpError, notFound, unprocessable, type RouteContext } from '../http/router.ts';
import type { Repo } from '../store.ts';

export const WORKFLOWS_DIR = '.github/workflows';

/** Whether the caller may write workflow files: users may (their token scopes are not modelled). */
function mayWriteWorkflows(ctx: RouteContext): boolean {
  if (ctx.auth.kind !== 'installation') return true;
  return ctx.auth.permissions.workflows === 'write' || ctx.auth.permissions.workflows === 'admin';
}

async function workflowBlobs(git: GitRepo, treeish: string | null): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (treeish === null) return out;
  for (const e of await git.lsTree(treeish, true, WORKFLOWS_DIR)) if (e.type !== 'tree') out.set(e.path, `${e.mode} ${e.sha}`);
  return out;
}

/** Workflow files that differ between two trees or commits (`before` null: none there). */
export async function changedWorkflowFiles(git: GitRepo, before: string | null, after: string): Promise<string[]> {
  const [a, b] = await Promise.all([workflowBlobs(git, before), workflowBlobs(git, after)]);
  const changed = new Set<string>();
  for (const [path, id] of b) if (a.get(path) !== id) changed.add(path);
  for (const path of a.keys()) if (!b.has(path)) changed.add(path);
  return [...changed].sort();
}

/**
 * At a ref create or update (`POST`/`PATCH git/refs`): throws GitHub's refusal when the ref
 * would bring workflow changes the token may not make. Under the `ref` reading: 422 "Reference
 * update failed". That wording is a guess: it is what a ref write refused by a repository rule
 * answers (actions/github-script#455), and no report shows this rule's own answer at the ref.
 */
export async function refuseWorkflowChangesByApi(ctx: RouteContext, git: GitRepo, before: string | null, after: string): Promise<void> {
  if ((await changedWorkflowFiles(git, before, after)).length === 0) return;
  refuseWorkflowRule(ctx);
}

/** Throws the workflow-file rule's refusal of a ref write (as above) unless the token may write workflows. */
export function refuseWorkflowRule(ctx: RouteContext): void {
  if (mayWriteWorkflows(ctx)) return;
  if (ctx.emulator.readings.workflowRefusalAt === 'ref') throw unprocessable('Reference update failed');
  throw new HttpError(403, 'Resource not accessible by integration');
}

/** At `POST git/trees` (reading `trees`): 403 for a tree on a base whose workflow files it changes. */
export async function refuseWorkflowTree(ctx: RouteContext, git: GitRepo, base: string, tree: string): Promise<void> {
  if (ctx.emulator.readings.workflowRefusalAt !== 'trees' || mayWriteWorkflows(ctx)) return;
  if ((await changedWorkflowFiles(git, base, tree)).length > 0) throw new HttpError(403, 'Resource not accessible by integration');
}

/**
 * At `POST git/commits` (reading `commits`): 404 "Not Found" for a commit whose tree's workflow
 * files differ from its first parent's, or from the default branch's when it has none
 * (octokit/rest.js#368).
 */
export async function refuseWorkflowCommit(ctx: RouteContext, git: GitRepo, repo: Repo, tree: string, parents: readonly string[]): Promise<void> {
  if (ctx.emulator.readings.workflowRefusalAt !== 'commits' || mayWriteWorkflows(ctx)) return;
  const before = parents[0] ?? (await defaultBranchHead(git, repo));
  if ((await changedWorkflowFiles(git, before, tree)).length > 0) throw notFound();
}

/** Throws the push-style refusal naming the first workflow file, for endpoints that commit themselves. */
export async function refuseWorkflowChangesByCommit(ctx: RouteContext, git: GitRepo, before: string | null, after: string): Promise<void> {
  if (mayWriteWorkflows(ctx)) return;
  const [first] = await changedWorkflowFiles(git, before, after);
  if (first !== undefined) throw new HttpError(403, `refusing to allow a GitHub App to create or update workflow \`${first}\` without \`workflows\` permission`);
}

/**
 * What a ref update's workflow files are compared with: the ref's own commit, or the default
 * branch's tip as for a new ref — unknown, one reading each (readings.ts `refUpdateWorkflows`).
 * Every write that moves a ref takes it: `PATCH git/refs`, merges, the contents API.
 */
export async function refUpdateBase(ctx: RouteContext, git: GitRepo, repo: Repo, before: string): Promise<string | null> {
  return ctx.emulator.readings.refUpdateWorkflows === 'default-branch' ? defaultBranchHead(git, repo) : before;
}

/** The default branch's commit: what a new ref's workflow files are compared with. */
export async function defaultBranchHead(git: GitRepo, repo: Repo): Promise<string | null> {
  return git.resolveRef(`refs/heads/${repo.defaultBranch}`);
}
