/** Repository metadata, collaborator permission, commits, compare and merges. */
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound } from '../http/router.ts';
import { onPush } from '../push.ts';
import type { Role } from '../store.ts';
import { actor, body, gitOf, repoOf, resolveCommitish } from './util.ts';
import { refUpdateBase, refuseWorkflowChangesByCommit } from './workflow-files.ts';

/** The permission GitHub reports for each role (maintain shows as write, triage as read). */
const PERMISSION: Record<Role, 'admin' | 'write' | 'read' | 'none'> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export function registerRepoRoutes(emulator: Emulator): void {
  const { router, store, shapes } = emulator;

  router.add('GET', '/repos/{owner}/{repo}', (ctx) => ({ status: 200, body: shapes.fullRepository(repoOf(ctx)) }), { permission: ['metadata', 'read'] });

  // REST "Get a branch" (docs "REST API endpoints for branches": Contents read): `protected` is
  // true when branch protection or a ruleset applies to it.
  // The emulator keeps protection as a set of branch names (Repo.protectedBranches) and reports it
  // only: it does not refuse writes to them, as GitHub does not for an App on the bypass list —
  // the case where baton's own door (src/hosts/github/git-refs.ts) is all that stands.
  router.add(
    'GET',
    '/repos/{owner}/{repo}/branches/{branch}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const name = ctx.params.branch!;
      const git = gitOf(ctx, repo);
      const sha = await git.resolveRef(`refs/heads/${name}`);
      if (sha === null) throw notFound('Branch not found');
      const url = `${shapes.repoUrl(repo)}/branches/${name}`;
      const isProtected = repo.protectedBranches?.has(name) === true;
      return { status: 200, body: { name, commit: shapes.commit(repo, await git.readCommit(sha)), _links: { self: url, html: `https://github.com/${repo.fullName}/tree/${name}` }, protected: isProtected, protection: { enabled: isProtected, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } }, protection_url: `${url}/protection` } };
    },
    { permission: ['contents', 'read'] },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/collaborators/{username}/permission',
    (ctx) => {
      const repo = repoOf(ctx);
      const login = ctx.params.username!;
      // Accounts that are not users (apps, `Copilot`) get 404 here, never `none`
      // (anthropics/claude-code-action PR #1030: "Copilot is not a user").
      if (!store.isUser(login)) throw notFound(`${login} is not a user`);
      // On a public repository anyone reads: a non-collaborator is answered `read`
      // (aws-ia/cloudformation-github-resource-providers PR #14); on a private one, `none`.
      const role = store.role(repo, login);
      const permission = PERMISSION[role];
      const permissions = {
        admin: permission === 'admin',
        maintain: role === 'admin' || role === 'maintain',
        push: permission === 'admin' || permission === 'write',
        triage: role !== 'read' && role !== 'none',
        pull: permission !== 'none',
      };
      return {
        status: 200,
        body: {
          permission,
          role_name: role,
          user: { ...shapes.user(login), permissions, role_name: role },
        },
      };
    },
    { permission: ['metadata', 'read'] },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/commits/{ref}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const sha = await resolveCommitish(git, ctx.params.ref!);
      if (sha === null) throw new HttpError(422, `No commit found for SHA: ${ctx.params.ref}`);
      const commit = await git.readCommit(sha);
      const files = commit.parents[0] === undefined ? [] : await git.diff(commit.parents[0], sha);
      return { status: 200, body: shapes.commit(repo, commit, files.map((f) => shapes.diffEntry(repo, sha, f))) };
    },
    { permission: ['contents', 'read'] },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/compare/{basehead}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const parts = ctx.params.basehead!.split('...');
      if (parts.length !== 2) throw notFound();
      // `owner:branch` names a branch of a fork; every branch lives in this repository here.
      const [baseRef, headRef] = parts.map((p) => p.replace(/^[^:]+:/, '')) as [string, string];
      const base = await resolveCommitish(git, baseRef);
      const head = await resolveCommitish(git, headRef);
      if (base === null || head === null) throw notFound();
      const mergeBase = await git.mergeBase(base, head);
      if (mergeBase === null) throw notFound(`No common ancestor between ${baseRef} and ${headRef}.`);
      const ahead = await git.countCommits(mergeBase, head);
      const behind = await git.countCommits(mergeBase, base);
      const status = ahead === 0 && behind === 0 ? 'identical' : behind === 0 ? 'ahead' : ahead === 0 ? 'behind' : 'diverged';
      const commits = [];
      for (const sha of await git.revList(mergeBase, head)) commits.push(shapes.commit(repo, await git.readCommit(sha)));
      const files = (await git.diff(mergeBase, head)).map((f) => shapes.diffEntry(repo, head, f));
      const html = `${shapes.repoHtml(repo)}/compare/${ctx.params.basehead}`;
      return {
        status: 200,
        body: {
          url: `${shapes.repoUrl(repo)}/compare/${ctx.params.basehead}`,
          html_url: html,
          permalink_url: `${shapes.repoHtml(repo)}/compare/${base}...${head}`,
          diff_url: `${html}.diff`,
          patch_url: `${html}.patch`,
          base_commit: shapes.commit(repo, await git.readCommit(base)),
          merge_base_commit: shapes.commit(repo, await git.readCommit(mergeBase)),
          status,
          ahead_by: ahead,
          behind_by: behind,
          total_commits: ahead,
          commits,
          files,
        },
      };
    },
    { permission: ['contents', 'read'] },
  );

  router.add(
    'POST',
    '/repos/{owner}/{repo}/merges',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const request = body<{ base: string; head: string; commit_message?: string }>(ctx);
      const baseRef = `refs/heads/${request.base}`;
      const base = await git.resolveRef(baseRef);
      if (base === null) throw notFound('Base does not exist');
      const head = await resolveCommitish(git, request.head);
      if (head === null) throw notFound('Head does not exist');
      if (await git.isAncestor(head, base)) return { status: 204 };
      const merged = await git.mergeTree(base, head);
      if ('conflicts' in merged) throw new HttpError(409, 'Merge conflict');
      await refuseWorkflowChangesByCommit(ctx, git, await refUpdateBase(ctx, git, repo, base), merged.tree);
      const message = request.commit_message ?? `Merge ${request.head} into ${request.base}`;
      const sha = await git.commitTree(merged.tree, [base, head], message);
      await git.updateRef(baseRef, sha, base);
      await onPush(emulator, repo, [{ before: base, after: sha, ref: baseRef }], actor(ctx));
      return { status: 201, body: shapes.commit(repo, await git.readCommit(sha)) };
    },
    { permission: ['contents', 'write'] },
  );
}
