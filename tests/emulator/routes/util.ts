/** Small helpers shared by the route groups. */
import type { GitRepo } from '../git.ts';
import { notFound, type RouteContext, type RouteResult } from '../http/router.ts';
import type { Issue, Repo } from '../store.ts';

export function repoOf(ctx: RouteContext): Repo {
  const repo = ctx.emulator.store.repo(ctx.params.owner ?? '', ctx.params.repo ?? '');
  if (repo === undefined) throw notFound();
  return repo;
}

export function gitOf(ctx: RouteContext, repo: Repo): GitRepo {
  return ctx.emulator.git(repo.owner, repo.name);
}

/** The login acting: the app's bot, the runner's bot, or the user behind a personal token. */
export function actor(ctx: RouteContext): string {
  const auth = ctx.auth;
  if (auth.kind === 'installation' || auth.kind === 'user') return auth.login;
  return ctx.emulator.store.app.botLogin;
}

/**
 * A person without push access (a `read` or `triage` role) may not make, move or delete a ref:
 * GitHub answers 404, as it does for what a caller has no permission for ("Troubleshooting the
 * REST API": a 404 "Not Found" for a resource that exists when the caller lacks access;
 * "Repository roles": pushing needs the write role). Only people given such a role
 * (`store.setRole`) are refused: a person the repository does not name is taken for a
 * collaborator, as the emulator's tests always have. Installations are held to their own
 * `contents: write` by the route's permission.
 */
export function refusePushless(ctx: RouteContext, repo: Repo): void {
  if (ctx.auth.kind !== 'user') return;
  const role = repo.roles.get(ctx.auth.login.toLowerCase());
  if (role !== undefined && !['admin', 'maintain', 'write'].includes(role)) throw notFound();
}

/** Whether the caller is an installation of the app (its comments show `performed_via_github_app`). */
export function viaApp(ctx: RouteContext): boolean {
  return ctx.auth.kind === 'installation' && ctx.auth.login === ctx.emulator.store.app.botLogin;
}

export function issueOf(ctx: RouteContext, repo: Repo, key = 'issue_number'): Issue {
  const issue = repo.issues.get(Number(ctx.params[key]));
  if (issue === undefined) throw notFound();
  return issue;
}

/** `per_page`/`page` pagination with a `Link` header, as Octokit's paginate() expects. */
export function paginate(ctx: RouteContext, items: unknown[], wrap?: (page: unknown[]) => unknown): RouteResult {
  const perPage = Math.min(Math.max(Number(ctx.query.get('per_page') ?? 30) || 30, 1), 100);
  const page = Math.max(Number(ctx.query.get('page') ?? 1) || 1, 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const headers: Record<string, string> = {};
  if (last > 1) {
    const base = `${ctx.emulator.apiUrl}${ctx.route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ctx.params[name] ?? ''))}`;
    const link = (p: number, rel: string) => {
      const query = new URLSearchParams(ctx.query);
      query.set('page', String(p));
      query.set('per_page', String(perPage));
      return `<${base}?${query.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
    if (links.length > 0) headers.link = links.join(', ');
  }
  return { status: 200, body: wrap === undefined ? slice : wrap(slice), headers };
}

export function body<T>(ctx: RouteContext): T {
  return ctx.body as T;
}

/** A branch, tag, full ref or commit sha → commit sha; null when it names nothing. */
export async function resolveCommitish(git: GitRepo, ref: string): Promise<string | null> {
  if (/^[0-9a-f]{40}$/.test(ref)) return (await git.type(ref)) === 'commit' ? ref : null;
  if (ref.startsWith('refs/')) return git.resolveRef(ref);
  // REST "Get a commit": "a commit SHA, branch name (heads/BRANCH_NAME), or tag name (tags/TAG_NAME)".
  if (/^(heads|tags)\//.test(ref)) {
    const sha = await git.resolveRef(`refs/${ref}`);
    if (sha !== null) return sha;
  }
  for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`]) {
    const sha = await git.resolveRef(candidate);
    if (sha !== null) return sha;
  }
  if (/^[0-9a-f]{7,39}$/.test(ref) && (await git.type(ref)) === 'commit') return git.resolveRef(ref);
  return null;
}
