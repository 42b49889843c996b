// Repository permissions are ordered: listing `write` in `roles` admits maintainers and
// admins too, which is what people expect from GitHub's own permission levels.
import type { Role, Triggers } from '../manifest/types.ts';

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

/** What starts a run: a person's label or command, or an event or schedule the manifest subscribes to. */
export type TriggerKind = 'pull_request' | 'issues' | 'workflow_run' | 'schedule';

/**
 * Whether an event's author may cause an automatic run (`on.<event>.authors`). Such a run is
 * the manifest's act, not the author's: the author only decides whether it happens. A schedule
 * has no author. Baton's own events are refused before this (the hosts), unless its login is listed.
 */
export function admitsAuthor(on: Triggers, trigger: TriggerKind, login: string, permission: Role | 'none'): boolean {
  if (trigger === 'schedule') return true;
  const authors = trigger === 'pull_request' ? on.pullRequest?.authors : trigger === 'issues' ? on.issues?.authors : on.workflowRun?.authors;
  if (!authors) return false; // the workflow does not subscribe to the event: nothing starts
  return authors.any || listsBot(authors.bots, login) || isAllowed(permission, authors.roles);
}
