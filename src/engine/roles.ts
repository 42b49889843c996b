// Repository permissions are ordered: listing `write` in `roles` admits maintainers and
// admins too, which is what people expect from GitHub's own permission levels.
import type { Role } from '../manifest/types.ts';

const RANK: Record<Role | 'none', number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

function lowest(roles: readonly Role[]): Role | undefined {
  let best: Role | undefined;
  for (const r of roles) if (best === undefined || RANK[r] < RANK[best]) best = r;
  return best;
}

/** Whether someone with `permission` may act where `roles` are required. No roles = nobody. */
export function isAllowed(permission: Role | 'none', roles: readonly Role[]): boolean {
  const min = lowest(roles);
  return min !== undefined && RANK[permission] >= RANK[min];
}

/** "write" → "`write` permission (or higher)", for refusals. */
export function describeRoles(roles: readonly Role[]): string {
  const min = lowest(roles);
  if (min === undefined) return 'a role no one has (the workflow lists no roles)';
  return min === 'admin' ? '`admin` permission' : `\`${min}\` permission (or higher)`;
}

/**
 * Bots have no repository permission on GitHub (the collaborator permission API answers
 * 404 for apps and `Copilot`): a workflow admits one only by its login in `on.bots`,
 * whatever `on.roles` says. Logins compare case-insensitively, as GitHub's do.
 */
export function listsBot(bots: readonly string[], login: string): boolean {
  return bots.some((b) => b.toLowerCase() === login.toLowerCase());
}
