// Replies to people without a role are rationed: a stranger's thirty comments must not cost
// thirty of baton's (GitHub counts content creation against the App's limits, and the thread
// fills with noise). The count is read from GitHub itself — baton's own replies in the thread
// that address the person, in the last hour — so it holds across restarts and replicas.
import type { ThreadComment } from '../../record/find.ts';
import type { Role } from '../../manifest/types.ts';
import { isAllowed } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { permissionOf } from './permission.ts';

/** Replies one person without a role gets per thread and hour; after that, silence. */
export const REPLIES_PER_STRANGER_PER_HOUR = 3;
const HOUR_MS = 60 * 60_000;

/** Who counts as having a role where no workflow says: the default `on.roles`. */
const DEFAULT_ROLES: Role[] = ['admin', 'maintain', 'write'];

/** baton's replies (comments of its bot that open with `@login,`) in the last hour. */
export function recentRepliesTo(comments: readonly ThreadComment[], botLogin: string, login: string, now: number): number {
  const bot = botLogin.toLowerCase();
  const opening = `@${login.toLowerCase()},`;
  return comments.filter(
    (c) => c.author.toLowerCase() === bot && c.body.toLowerCase().startsWith(opening) && (c.createdAt === undefined || now - c.createdAt < HOUR_MS),
  ).length;
}

/**
 * Whether a reply to `login` must not be posted. `refused`: the reply refuses the person for
 * lacking the role (the engine knows); otherwise their permission is looked up, and only once
 * they have had their share.
 */
export async function overReplyLimit(gh: RepoContext, comments: readonly ThreadComment[], login: string, refused: boolean, now = Date.now()): Promise<boolean> {
  if (recentRepliesTo(comments, gh.botLogin, login, now) < REPLIES_PER_STRANGER_PER_HOUR) return false;
  if (refused) return true;
  return !isAllowed(await permissionOf(gh, login), DEFAULT_ROLES);
}
