/**
 * GitHub protects `.github/workflows/`: a write that creates, changes or removes a
 * workflow file needs the `workflows` permission, which a `GITHUB_TOKEN` can never have
 * and an App has only when its manifest asks for it. Without it:
 * - a `git push` is rejected with "refusing to allow a GitHub App to create or update
 *   workflow `.github/workflows/x.yml` without `workflows` permission"
 *   (e.g. repo-sync/github-sync#23, peter-evans/create-pull-request#1234);
 * - the Git Data API answers 403 "Resource not accessible by integration", already when
 *   the tree is created (anthropics/claude-code-action#29: POST git/trees with
 *   `.github/workflows/ci.yml`), and for a ref created or moved onto a commit whose
 *   workflow files differ (the ref's old commit, or the default branch for a new ref);
 * - endpoints that write a commit themselves (merges, contents) answer with the
 *   push wording (KeisukeYamashita/auto-pull-request-merge#481).
 * The emulator authenticates no `git push` (pushes go to the bare repository directly),
 * so only the API paths carry the rule.
 */
import type { GitRepo } from '../git.ts';
import { HttpError, type RouteContext } from '../http/router.ts';
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

/** The Git Data write that brings a workflow change: a tree, a commit, or a ref created or moved. */
export type GitDataStage = 'trees' | 'commits' | 'ref';

/**
 * Throws GitHub's refusal when a Git Data write brings workflow changes the token may not make.
 * Where it comes is a reading (readings.workflowRefusalAt): 403 at the tree, 404 at the commit,
 * or only at the ref (422, the push wording); a ref onto a commit made elsewhere is refused
 * whatever the reading (403, or 422 under `ref`).
 */
export async function refuseWorkflowChangesByApi(ctx: RouteContext, git: GitRepo, before: string | null, after: string, stage: GitDataStage = 'ref'): Promise<void> {
  if (mayWriteWorkflows(ctx)) return;
  const at = ctx.emulator.readings.workflowRefusalAt;
  if (stage !== 'ref' && stage !== at) return;
  const [first] = await changedWorkflowFiles(git, before, after);
  if (first === undefined) return;
  if (stage === 'commits') throw new HttpError(404, 'Not Found');
  if (at === 'ref') throw new HttpError(422, `refusing to allow a GitHub App to create or update workflow \`${first}\` without \`workflows\` permission`);
  throw new HttpError(403, 'Resource not accessible by integration');
}

/** Throws the push-style refusal naming the first workflow file, for endpoints that commit themselves. */
export async function refuseWorkflowChangesByCommit(ctx: RouteContext, git: GitRepo, before: string | null, after: string): Promise<void> {
  if (mayWriteWorkflows(ctx)) return;
  const [first] = await changedWorkflowFiles(git, before, after);
  if (first !== undefined) throw new HttpError(403, `refusing to allow a GitHub App to create or update workflow \`${first}\` without \`workflows\` permission`);
}

/** The default branch's commit: what a new ref's workflow files are compared with. */
export async function defaultBranchHead(git: GitRepo, repo: Repo): Promise<string | null> {
  return git.resolveRef(`refs/heads/${repo.defaultBranch}`);
}
