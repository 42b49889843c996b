/** The GitHub App: who it is, its installations, and installation access tokens. */
import type { Level, Permissions } from '../auth.ts';
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, unprocessable } from '../http/router.ts';
import { body, paginate, repoOf } from './util.ts';

const RANK: Record<Level, number> = { read: 1, write: 2, admin: 3 };

export function registerAppRoutes(emulator: Emulator): void {
  const { router, store, shapes } = emulator;

  router.add('GET', '/app', () => ({ status: 200, body: shapes.integration() }), { auth: 'app' });

  // The App's installations, oldest first, paginated as a bare array ("List installations
  // for the authenticated app": JWT only, 30 per page by default, at most 100). GitHub's
  // OpenAPI description types this list's `account` as allOf(Simple User, Enterprise) — a
  // known oddity of the description (github/rest-api-description issue #1397; GitHub sends
  // the user) — so the account also carries the Enterprise fields that validation requires.
  router.add(
    'GET',
    '/app/installations',
    (ctx) =>
      paginate(
        ctx,
        [...store.installations.keys()].sort((a, b) => a - b).map((id) => {
          const inst = shapes.installation(id);
          return { ...inst, account: { ...inst.account, name: inst.account.login, slug: inst.account.login, created_at: inst.created_at, updated_at: inst.updated_at } };
        }),
      ),
    { auth: 'app' },
  );

  router.add(
    'GET',
    '/app/installations/{installation_id}',
    (ctx) => {
      const id = Number(ctx.params.installation_id);
      if (!store.installations.has(id)) throw notFound();
      return { status: 200, body: shapes.installation(id) };
    },
    { auth: 'app' },
  );

  router.add(
    'POST',
    '/app/installations/{installation_id}/access_tokens',
    (ctx) => {
      const id = Number(ctx.params.installation_id);
      const installation = store.installations.get(id);
      if (installation === undefined) throw notFound();
      const request = body<{ repositories?: string[]; repository_ids?: number[]; permissions?: Permissions }>(ctx);
      const permissions = request.permissions ?? installation.permissions;
      for (const [scope, level] of Object.entries(permissions)) {
        const granted = installation.permissions[scope];
        if (granted === undefined || RANK[granted] < RANK[level]) throw unprocessable('The permissions requested are not granted to this installation.');
      }
      const all = [...store.repos.values()].filter((r) => r.installationId === id);
      let selected: typeof all | undefined;
      if (request.repositories !== undefined || request.repository_ids !== undefined) {
        selected = [];
        for (const name of request.repositories ?? []) {
          const repo = all.find((r) => r.name.toLowerCase() === name.toLowerCase());
          if (repo === undefined) throw unprocessable(`There is at least one repository that does not exist or is not accessible to the parent installation.`);
          selected.push(repo);
        }
        for (const repoId of request.repository_ids ?? []) {
          const repo = all.find((r) => r.id === repoId);
          if (repo === undefined) throw unprocessable(`There is at least one repository that does not exist or is not accessible to the parent installation.`);
          selected.push(repo);
        }
      }
      const token = emulator.auth.issue(
        id,
        permissions,
        selected?.map((r) => r.fullName),
      );
      return {
        status: 201,
        body: {
          token: token.token,
          expires_at: token.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          permissions,
          repository_selection: selected === undefined ? 'all' : 'selected',
          ...(selected === undefined ? {} : { repositories: selected.map((r) => shapes.repository(r)) }),
        },
      };
    },
    { auth: 'app' },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/installation',
    (ctx) => {
      const repo = repoOf(ctx);
      return { status: 200, body: shapes.installation(repo.installationId) };
    },
    { auth: 'app' },
  );

  router.add('GET', '/installation/repositories', (ctx) => {
    if (ctx.auth.kind !== 'installation') throw new HttpError(403, 'You must authenticate with an installation access token in order to list repositories for an installation.');
    const auth = ctx.auth;
    const repos = [...store.repos.values()].filter(
      (r) => r.installationId === auth.installationId && (auth.repositories === undefined || auth.repositories.includes(r.fullName)),
    );
    return paginate(ctx, repos.map((r) => shapes.repository(r)), (page) => ({
      total_count: repos.length,
      repositories: page,
      repository_selection: auth.repositories === undefined ? 'all' : 'selected',
    }));
  });
}
