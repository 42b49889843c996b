/**
 * The Git Data API over the bare repository: blobs, trees (with base_tree), commits and
 * refs. Ref updates refuse non-fast-forwards unless forced, as GitHub does, and moving a
 * branch sends the same `push` webhook a `git push` would.
 */
import type { Emulator } from '../emulator.ts';
import { ZERO_SHA, type GitRepo, type Person } from '../git.ts';
import { notFound, unprocessable, validationFailed, type RouteContext } from '../http/router.ts';
import { onPush } from '../push.ts';
import type { Repo } from '../store.ts';
import { actor, body, gitOf, refusePushless, repoOf, resolveCommitish } from './util.ts';
import { defaultBranchHead, refUpdateBase, refuseWorkflowChangesByApi, refuseWorkflowCommit, refuseWorkflowTree } from './workflow-files.ts';
import { refuseForkOnlyCommit } from '../forks.ts';

interface TreeInput {
  path?: string;
  mode?: string;
  type?: 'blob' | 'tree' | 'commit';
  sha?: string | null;
  content?: string;
}

const read = { permission: ['contents', 'read'] as ['contents', 'read'] };
const write = { permission: ['contents', 'write'] as ['contents', 'write'] };

async function treeOf(git: GitRepo, treeish: string): Promise<string | null> {
  const type = await git.type(treeish);
  if (type === 'tree') return treeish;
  if (type === 'commit') return (await git.readCommit(treeish)).tree;
  const sha = await resolveCommitish(git, treeish);
  return sha === null ? null : (await git.readCommit(sha)).tree;
}

/** `heads/main` → `refs/heads/main`. */
function fullRef(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/${ref}`;
}

/** A create arriving this soon after another of the same ref was done still counts as its racer (`readings.refCreateRace`). */
const RACE_WINDOW_MS = 5;

export function registerGitRoutes(emulator: Emulator): void {
  const { router, shapes } = emulator;
  /** When each ref's create through the API arrived and was done (repository directory and ref name). */
  const createdAt = new Map<string, { arrived: number; done: number }>();

  const treeResponse = async (repo: Repo, git: GitRepo, sha: string, recursive: boolean) => {
    const entries = await git.lsTree(sha, recursive);
    return { sha, url: `${shapes.repoUrl(repo)}/git/trees/${sha}`, tree: entries.map((e) => shapes.treeEntry(repo, e)), truncated: false };
  };

  router.add(
    'POST',
    '/repos/{owner}/{repo}/git/blobs',
    async (ctx) => {
      const repo = repoOf(ctx);
      const input = body<{ content: string; encoding?: string }>(ctx);
      const encoding = input.encoding ?? 'utf-8';
      if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') {
        throw validationFailed([{ resource: 'Blob', field: 'encoding', code: 'invalid', value: encoding }]);
      }
      const content = encoding === 'base64' ? Buffer.from(input.content, 'base64') : Buffer.from(input.content, 'utf8');
      const sha = await gitOf(ctx, repo).hashBlob(content);
      return { status: 201, body: { sha, url: `${shapes.repoUrl(repo)}/git/blobs/${sha}` } };
    },
    write,
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/git/blobs/{file_sha}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const sha = ctx.params.file_sha!;
      if ((await git.type(sha)) !== 'blob') throw notFound();
      const content = await git.readBlob(sha);
      return {
        status: 200,
        body: { sha, node_id: `B_${sha}`, size: content.length, url: `${shapes.repoUrl(repo)}/git/blobs/${sha}`, content: content.toString('base64'), encoding: 'base64' },
      };
    },
    read,
  );

  router.add(
    'POST',
    '/repos/{owner}/{repo}/git/trees',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const input = body<{ tree: TreeInput[]; base_tree?: string }>(ctx);
      let base: string | undefined;
      if (input.base_tree !== undefined) {
        const tree = await treeOf(git, input.base_tree);
        if (tree === null) throw unprocessable('Invalid tree info');
        base = tree;
      }
      const changes = [];
      for (const [index, entry] of input.tree.entries()) {
        const path = entry.path ?? '';
        if (path === '' || path.startsWith('/') || path.split('/').some((p) => p === '' || p === '.' || p === '..')) {
          throw validationFailed([{ resource: 'Tree', field: `tree[${index}].path`, code: 'invalid', value: path }], 'Invalid tree info');
        }
        const type = entry.type ?? 'blob';
        const mode = entry.mode ?? (type === 'tree' ? '040000' : '100644');
        if (entry.content !== undefined) {
          if (type !== 'blob') throw unprocessable('Invalid tree info');
          changes.push({ path, mode, type, sha: await git.hashBlob(Buffer.from(entry.content, 'utf8')) });
        } else if (entry.sha === null) {
          changes.push({ path, mode, type, sha: null });
        } else if (entry.sha !== undefined) {
          const actual = await git.type(entry.sha);
          if (actual === null || (type !== 'commit' && actual !== type)) {
            throw validationFailed([{ resource: 'Tree', field: `tree[${index}].sha`, code: 'invalid', value: entry.sha }], `tree.sha ${entry.sha} is not a valid ${type}`);
          }
          changes.push({ path, mode, type, sha: entry.sha });
        } else {
          throw validationFailed([{ resource: 'Tree', field: `tree[${index}]`, code: 'missing_field', message: 'Must supply either tree.sha or tree.content' }], 'Must supply either tree.sha or tree.content');
        }
      }
      const sha = await git.writeTree(base, changes);
      // A tree on a base that changes its workflow files may be refused already here (readings.ts).
      if (base !== undefined) await refuseWorkflowTree(ctx, git, base, sha);
      return { status: 201, body: await treeResponse(repo, git, sha, false) };
    },
    write,
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/git/trees/{tree_sha}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const sha = await treeOf(git, ctx.params.tree_sha!);
      if (sha === null) throw notFound();
      const recursive = ctx.query.has('recursive') && !['0', 'false'].includes(ctx.query.get('recursive')!);
      return { status: 200, body: await treeResponse(repo, git, sha, recursive) };
    },
    read,
  );

  router.add(
    'POST',
    '/repos/{owner}/{repo}/git/commits',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const input = body<{ message: string; tree: string; parents?: string[]; author?: Partial<Person>; committer?: Partial<Person> }>(ctx);
      if ((await git.type(input.tree)) !== 'tree') throw unprocessable('Tree SHA does not exist');
      for (const parent of input.parents ?? []) {
        if ((await git.type(parent)) !== 'commit') throw unprocessable('Parent SHA does not exist or is not a commit object');
      }
      await refuseWorkflowCommit(ctx, git, repo, input.tree, input.parents ?? []);
      const sha = await git.commitTree(input.tree, input.parents ?? [], input.message, input.author, input.committer);
      return { status: 201, body: shapes.gitCommit(repo, await git.readCommit(sha)) };
    },
    write,
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/git/commits/{commit_sha}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const sha = ctx.params.commit_sha!;
      if ((await git.type(sha)) !== 'commit') throw notFound();
      return { status: 200, body: shapes.gitCommit(repo, await git.readCommit(sha)) };
    },
    read,
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/git/ref/{ref}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const ref = fullRef(ctx.params.ref!);
      const found = (await gitOf(ctx, repo).listRefs(ref)).find((r) => r.ref === ref);
      if (found === undefined) throw notFound();
      return { status: 200, body: shapes.gitRef(repo, found.ref, found.sha, found.type) };
    },
    read,
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/git/matching-refs/{ref}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const prefix = fullRef(ctx.params.ref!);
      const refs = (await gitOf(ctx, repo).listRefs('refs/')).filter((r) => r.ref.startsWith(prefix));
      return { status: 200, body: refs.map((r) => shapes.gitRef(repo, r.ref, r.sha, r.type)) };
    },
    read,
  );

  const checkObject = async (git: GitRepo, sha: string) => {
    if (!/^[0-9a-f]{40}$/.test(sha) || (await git.type(sha)) === null) throw unprocessable('Object does not exist');
  };

  router.add(
    'POST',
    '/repos/{owner}/{repo}/git/refs',
    async (ctx) => {
      const repo = repoOf(ctx);
      refusePushless(ctx, repo);
      const git = gitOf(ctx, repo);
      const input = body<{ ref: string; sha: string }>(ctx);
      if (!/^refs\/[^/]+\/.+/.test(input.ref) || input.ref.includes('..') || input.ref.endsWith('/') || /[\s~^:?*[\\]/.test(input.ref)) {
        throw unprocessable(`${input.ref} is not a valid ref name.`);
      }
      await checkObject(git, input.sha);
      const key = `${repo.gitDir}\0${input.ref}`;
      const created = createdAt.get(key);
      if ((await git.listRefs(input.ref)).some((r) => r.ref === input.ref)) {
        // What the loser of a race gets is undocumented (readings.ts): a create that arrived while
        // the winner's was under way, or right after it, is taken for a racer.
        const racer = created !== undefined && (created.arrived >= ctx.arrivedAt || ctx.arrivedAt - created.done < RACE_WINDOW_MS);
        throw unprocessable(racer && ctx.emulator.readings.refCreateRace === 'update-failed' ? 'Reference update failed' : 'Reference already exists');
      }
      await refuseForkOnlyCommit(ctx, git, input.sha);
      await refuseWorkflowChangesByApi(ctx, git, await defaultBranchHead(git, repo), input.sha);
      try {
        await git.updateRef(input.ref, input.sha, ZERO_SHA);
      } catch {
        throw unprocessable(ctx.emulator.readings.refCreateRace === 'update-failed' ? 'Reference update failed' : 'Reference already exists');
      }
      createdAt.set(key, { arrived: ctx.arrivedAt, done: Date.now() });
      await onPush(emulator, repo, [{ before: ZERO_SHA, after: input.sha, ref: input.ref }], actor(ctx));
      return { status: 201, body: shapes.gitRef(repo, input.ref, input.sha), headers: { location: `${shapes.repoUrl(repo)}/git/${input.ref}` } };
    },
    write,
  );

  const existing = async (ctx: RouteContext, git: GitRepo) => {
    const ref = fullRef(ctx.params.ref!);
    const found = (await git.listRefs(ref)).find((r) => r.ref === ref);
    if (found === undefined) throw unprocessable('Reference does not exist');
    return found;
  };

  router.add(
    'PATCH',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    async (ctx) => {
      const repo = repoOf(ctx);
      refusePushless(ctx, repo);
      const git = gitOf(ctx, repo);
      const input = body<{ sha: string; force?: boolean }>(ctx);
      const current = await existing(ctx, git);
      await checkObject(git, input.sha);
      if (input.force !== true && current.sha !== input.sha && !(await git.isAncestor(current.sha, input.sha))) {
        throw unprocessable('Update is not a fast forward');
      }
      await refuseWorkflowChangesByApi(ctx, git, await refUpdateBase(ctx, git, repo, current.sha), input.sha);
      try {
        // Compare-and-swap: a concurrent update between our check and the write loses.
        await git.updateRef(current.ref, input.sha, current.sha);
      } catch {
        throw unprocessable('Update is not a fast forward');
      }
      if (current.sha !== input.sha) await onPush(emulator, repo, [{ before: current.sha, after: input.sha, ref: current.ref }], actor(ctx));
      return { status: 200, body: shapes.gitRef(repo, current.ref, input.sha) };
    },
    write,
  );

  router.add(
    'DELETE',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    async (ctx) => {
      const repo = repoOf(ctx);
      refusePushless(ctx, repo);
      const git = gitOf(ctx, repo);
      const current = await existing(ctx, git);
      await git.deleteRef(current.ref);
      await onPush(emulator, repo, [{ before: current.sha, after: ZERO_SHA, ref: current.ref }], actor(ctx));
      return { status: 204 };
    },
    write,
  );
}
