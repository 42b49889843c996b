// What people without a role cost: every write baton makes because of someone goes through
// here, and here only — replies, notices about look-alike records, the 👀 reaction. A person
// without the role for what they asked (a "stranger") gets at most WRITES_PER_STRANGER_PER_HOUR
// writes per thread and hour, and all strangers of one thread together at most
// STRANGER_WRITES_PER_THREAD_PER_HOUR, whatever the kind of write; then silence. The count is
// read from GitHub itself (baton's own comments in the thread, each marked with the person it
// was written for), so it holds across restarts and replicas. Strangers get no reaction: their
// rationed reply is all the acknowledgement they get. What a stranger asks for never reaches
// the engine (the handlers decide the role first), so it claims nothing and rewrites nothing.
import type { Role } from '../../manifest/types.ts';
import { isAllowed, listsBot } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { permissionOf } from './permission.ts';
import { markerOf, postOnce, readThread } from './thread.ts';

/** Writes one person without a role costs per thread and hour; after that, silence. */
export const WRITES_PER_STRANGER_PER_HOUR = 3;
/** Writes all people without a role together cost per thread and hour (many accounts, one thread). */
export const STRANGER_WRITES_PER_THREAD_PER_HOUR = 10;
const HOUR_MS = 60 * 60_000;

/** Who counts as having a role where no workflow says (help, status, plans): the default `on.roles`. */
export const DEFAULT_ROLES: readonly Role[] = ['admin', 'maintain', 'write'];

declare const decided: unique symbol;
/**
 * A person and whether they have the role for what they asked. Made only by the functions
 * below, from their permission: the door's writes take nothing else, so no write can be made
 * for a person without deciding first whether they are a stranger.
 */
export interface Standing {
  readonly login: string;
  readonly stranger: boolean;
  readonly [decided]: true;
}

function make(login: string, stranger: boolean): Standing {
  return { login, stranger } as Standing;
}

/** From a permission already looked up: a stranger unless it is enough for `roles` (or a listed bot). */
export function standingOf(login: string, permission: Role | 'none', roles: readonly Role[] = DEFAULT_ROLES, bots: readonly string[] = []): Standing {
  return make(login, !(listsBot(bots, login) || isAllowed(permission, roles)));
}

/** Looks the person's permission up; `roles`: what the act needs (default: write or higher). */
export async function lookUpStanding(gh: RepoContext, login: string, roles: readonly Role[] = DEFAULT_ROLES): Promise<Standing> {
  return standingOf(login, await permissionOf(gh, login), roles);
}

/** Someone the engine has refused for want of a role (a reply command's `refused`). */
export function refusedStanding(login: string): Standing {
  return make(login, true);
}

/** One write per thread at a time in this process: two deliveries cannot both read "not yet". */
const tails = new Map<string, Promise<unknown>>();
function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
  const next = (tails.get(key) ?? Promise.resolve()).then(work, work);
  const tail = next.catch(() => undefined);
  tails.set(key, tail);
  void tail.then(() => tails.get(key) === tail && tails.delete(key));
  return next;
}

const STRANGER = 'baton:stranger ';
/** A stranger's write is marked with its key and the person: `baton:stranger <key>@<login>`. */
function strangerMarker(key: string, login: string): string {
  return `${STRANGER}${key}@${login.toLowerCase()}`;
}

/** Whether a write with this key was made already, for whomever (a notice is once per thread). */
export function written(markers: ReadonlySet<string>, key: string): boolean {
  if (markers.has(`baton:reply ${key}`)) return true;
  const prefix = `${STRANGER}${key}@`;
  for (const m of markers) if (m.startsWith(prefix) && !m.slice(prefix.length).includes('@')) return true;
  return false;
}

/**
 * Posts `body` for `who` once per `key` (the thread is read first to see whether an earlier
 * delivery did). For a stranger, only within the ration. Returns whether it was posted.
 */
export function replyFor(gh: RepoContext, number: number, key: string, who: Standing, body: string, now = Date.now()): Promise<boolean> {
  return serialised(`${gh.owner}/${gh.repo}#${number}`.toLowerCase(), async () => {
    const { comments, markers } = await readThread(gh, number);
    if (written(markers, key)) return false;
    if (!who.stranger) {
      await postOnce(gh, number, `baton:reply ${key}`, body, markers);
      return true;
    }
    let mine = 0;
    let all = 0;
    const login = who.login.toLowerCase();
    for (const c of comments) {
      const m = markerOf(c, gh.botLogin);
      if (!m?.startsWith(STRANGER) || (c.createdAt !== undefined && now - c.createdAt >= HOUR_MS)) continue;
      all++;
      if (m.slice(m.lastIndexOf('@') + 1) === login) mine++;
    }
    if (mine >= WRITES_PER_STRANGER_PER_HOUR || all >= STRANGER_WRITES_PER_THREAD_PER_HOUR) return false;
    await postOnce(gh, number, strangerMarker(key, who.login), body, markers);
    return true;
  });
}

/** 👀 on the comment or issue that asked: seen, working on it. Never for a stranger. */
export async function acknowledge(gh: RepoContext, who: Standing, target: { comment: number } | { issue: number }): Promise<void> {
  if (who.stranger) return;
  const o = { owner: gh.owner, repo: gh.repo, content: 'eyes' as const };
  // GitHub answers 200 (not an error) when the reaction exists already; a 422 is a refusal.
  if ('comment' in target) await gh.octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { ...o, comment_id: target.comment });
  else await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', { ...o, issue_number: target.issue });
}
