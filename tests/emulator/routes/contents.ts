/** The contents API: read a file or directory at a ref; create or update a file as one commit. */
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, type RouteContext } from '../http/router.ts';
import type { Person } from '../git.ts';
import { onPush } from '../push.ts';
import { actor, body, gitOf, repoOf, resolveCommitish } from './util.ts';
import { refUpdateBase, refuseWorkflowChangesByCommit } from './workflow-files.ts';

export function registerContentRoutes(emulator: Emulator): void {
  const { router, shapes } = emulator;

  const pathOf = (ctx: RouteContext) => ctx.params.path!.replace(/^\/+|\/+$/g, '');

  router.add(
    'GET',
    '/repos/{owner}/{repo}/contents/{path}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const ref = ctx.query.get('ref') ?? repo.defaultBranch;
      const sha = await resolveCommitish(git, ref);
      if (sha === null) throw notFound(`No commit found for the ref ${ref}`);
      const path = pathOf(ctx);
      const tree = (await git.readCommit(sha)).tree;
      if (path === '') {
        const entries = await git.lsTree(tree);
        return { status: 200, body: entries.map((e) => shapes.content(repo, ref, e)) };
      }
      const [entry] = (await git.lsTree(tree, false, path)).filter((e) => e.path === path);
      if (entry === undefined) throw notFound();
      if (entry.type === 'tree') {
        const entries = await git.lsTree(`${tree}:${path}`);
        return { status: 200, body: entries.map((e) => shapes.content(repo, ref, { ...e, path: `${path}/${e.path}` })) };
      }
      return { status: 200, body: shapes.content(repo, ref, entry, await git.readBlob(entry.sha)) };
    },
    { permission: ['contents', 'read'] },
  );

  router.add(
    'PUT',
    '/repos/{owner}/{repo}/contents/{path}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const input = body<{ message: string; content: string; sha?: string; branch?: string; author?: Partial<Person>; committer?: Partial<Person> }>(ctx);
      const branch = input.branch ?? repo.defaultBranch;
      const ref = `refs/heads/${branch}`;
      const parent = await git.resolveRef(ref);
      if (parent === null) throw notFound(`Branch ${branch} not found`);
      const path = pathOf(ctx);
      const baseTree = (await git.readCommit(parent)).tree;
      const [current] = (await git.lsTree(baseTree, false, path)).filter((e) => e.path === path);
      if (current !== undefined && input.sha === undefined) throw new HttpError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
      if (current !== undefined && input.sha !== current.sha) throw new HttpError(409, `${path} does not match ${input.sha}`);
      const blob = await git.hashBlob(Buffer.from(input.content, 'base64'));
      const tree = await git.writeTree(baseTree, [{ path, mode: '100644', type: 'blob', sha: blob }]);
      await refuseWorkflowChangesByCommit(ctx, git, await refUpdateBase(ctx, git, repo, parent), tree);
      // GitHub's noreply address of the account: `<id>+<login>@users.noreply.github.com`.
      const login = actor(ctx);
      const person = { name: login, email: `${emulator.store.user(login).id}+${login}@users.noreply.github.com` };
      const sha = await git.commitTree(tree, [parent], input.message, input.author ?? input.committer ?? person, input.committer ?? input.author ?? person);
      await git.updateRef(ref, sha, parent);
      await onPush(emulator, repo, [{ before: parent, after: sha, ref }], actor(ctx));
      const [entry] = (await git.lsTree(tree, false, path)).filter((e) => e.path === path);
      return {
        status: current === undefined ? 201 : 200,
        body: { content: shapes.content(repo, branch, entry!), commit: shapes.gitCommit(repo, await git.readCommit(sha)) },
      };
    },
    { permission: ['contents', 'write'] },
  );
}
