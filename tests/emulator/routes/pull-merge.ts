/**
 * Merging a pull request (REST docs "Merge a pull request", `PUT /pulls/{n}/merge`):
 * - `merge_method` `merge` (a merge commit, base and head as parents), `squash` (one commit on
 *   the base with the merged tree) or `rebase` (each of the PR's commits replayed on the base);
 * - `sha`, when given, must be the PR's head: else 409 "Head branch was modified. Review and try
 *   the merge again." (the docs' 409; wording from dlang/dlang-bot#77);
 * - a PR that cannot be merged (conflicts, closed, merged already): 405 "Pull Request is not
 *   mergeable" (the docs' 405; quipper/monorepo-deploy-actions#499: the same 405 for conflicts);
 * - the base branch moves like any ref update: GitHub's workflow-file rule applies to the new
 *   base commit as to `POST /merges` (workflow-files.ts);
 * - answered 200 `{ sha, merged: true, message: "Pull Request successfully merged" }`; a push
 *   to the base and `pull_request.closed` with `merged: true` are sent. The head branch stays
 *   (deleting it is a repository setting, off by default).
 * A rebase is replayed file by file: a commit whose changed files the base changed too is a
 * conflict (git would merge lines; the emulator takes the stricter reading).
 */
import type { Emulator } from '../emulator.ts';
import type { GitRepo } from '../git.ts';
import { HttpError, notFound } from '../http/router.ts';
import { onPush } from '../push.ts';
import { now, type Issue } from '../store.ts';
import { emitIssueEvent } from './issues.ts';
import { actor, body, gitOf, repoOf } from './util.ts';
import { refUpdateBase, refuseWorkflowChangesByCommit } from './workflow-files.ts';

type MergeMethod = 'merge' | 'squash' | 'rebase';

const NOT_MERGEABLE = 'Pull Request is not mergeable';

/** The new base commit for each method, or null on a conflict. */
async function mergedCommit(git: GitRepo, method: MergeMethod, base: string, head: string, title: string, message: string | undefined): Promise<string | null> {
  if (method === 'rebase') return rebase(git, base, head);
  const merged = await git.mergeTree(base, head);
  if ('conflicts' in merged) return null;
  const text = message === undefined ? title : `${title}\n\n${message}`;
  return git.commitTree(merged.tree, method === 'merge' ? [base, head] : [base], text);
}

/** Replays the commits of `head` not on `base` onto it, oldest first; null when one touches a file the base changed. */
async function rebase(git: GitRepo, base: string, head: string): Promise<string | null> {
  let onto = base;
  for (const sha of await git.revList(base, head)) {
    const commit = await git.readCommit(sha);
    const parent = commit.parents[0];
    if (parent === undefined || commit.parents.length > 1) return null;
    const changes = await git.diff(parent, sha);
    const paths = changes.flatMap((c) => [c.path, ...(c.previousPath ? [c.previousPath] : [])]);
    const [before, current, after] = await Promise.all([parent, onto, sha].map((c) => entriesAt(git, c, paths)));
    if (paths.some((p) => before!.get(p) !== current!.get(p))) return null;
    const tree = await git.writeTree(
      onto,
      paths.map((p) => {
        const e = after!.get(p);
        return e === undefined ? { path: p, mode: '100644', type: 'blob', sha: null } : { path: p, mode: e.split(' ')[0]!, type: 'blob', sha: e.split(' ')[1]! };
      }),
    );
    onto = await git.commitTree(tree, [onto], commit.message, commit.author, undefined);
  }
  return onto;
}

/** `mode sha` of each path in a commit's tree (absent paths left out). */
async function entriesAt(git: GitRepo, commit: string, paths: string[]): Promise<Map<string, string>> {
  const wanted = new Set(paths);
  const out = new Map<string, string>();
  for (const e of await git.lsTree(commit, true)) if (wanted.has(e.path)) out.set(e.path, `${e.mode} ${e.sha}`);
  return out;
}

export function registerPullMergeRoutes(emulator: Emulator): void {
  emulator.router.add(
    'PUT',
    '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const issue: Issue | undefined = repo.issues.get(Number(ctx.params.pull_number));
      if (issue?.pull === undefined) throw notFound();
      const pull = issue.pull;
      const input = body<{ commit_title?: string; commit_message?: string; sha?: string; merge_method?: MergeMethod } | null>(ctx) ?? {};
      if (issue.state !== 'open' || pull.merged) throw new HttpError(405, NOT_MERGEABLE);
      if (input.sha !== undefined && input.sha !== pull.headSha) throw new HttpError(409, 'Head branch was modified. Review and try the merge again.');
      const baseRef = `refs/heads/${pull.base}`;
      const base = await git.resolveRef(baseRef);
      if (base === null) throw new HttpError(405, NOT_MERGEABLE);
      const method = input.merge_method ?? 'merge';
      const title = input.commit_title ?? (method === 'squash' ? `${issue.title} (#${issue.number})` : `Merge pull request #${issue.number} from ${repo.owner}/${pull.head}`);
      const sha = await mergedCommit(git, method, base, pull.headSha, title, input.commit_message ?? (method === 'merge' ? issue.title : undefined));
      if (sha === null) throw new HttpError(405, NOT_MERGEABLE);
      await refuseWorkflowChangesByCommit(ctx, git, await refUpdateBase(ctx, git, repo, base), sha);
      // Compare-and-swap: a base moved since it was read is GitHub's other 405 (cli/cli#12748).
      await git.updateRef(baseRef, sha, base).catch(() => {
        throw new HttpError(405, 'Base branch was modified. Review and try the merge again.');
      });
      const sender = actor(ctx);
      pull.merged = true;
      pull.mergedAt = now();
      pull.mergedBy = sender;
      pull.mergeCommitSha = sha;
      issue.state = 'closed';
      issue.closedAt = pull.mergedAt;
      issue.updatedAt = pull.mergedAt;
      await onPush(emulator, repo, [{ before: base, after: sha, ref: baseRef }], sender);
      await emitIssueEvent(emulator, repo, issue, 'closed', {}, sender);
      return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
    },
    { permission: ['contents', 'write'] },
  );
}
