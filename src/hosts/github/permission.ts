// Who may do what follows the collaborator permission API; `role_name` carries the
// finer roles (maintain, triage) that `permission` folds into write/read.
import type { Role } from '../../manifest/types.ts';
import { ROLES } from '../../manifest/types.ts';
import { statusOf, type RepoContext } from './client.ts';

export async function permissionOf(gh: RepoContext, login: string): Promise<Role | 'none'> {
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { owner: gh.owner, repo: gh.repo, username: login });
    const role = (res.data as { role_name?: string }).role_name;
    if (role && (ROLES as readonly string[]).includes(role)) return role as Role;
    const p = res.data.permission;
    return (ROLES as readonly string[]).includes(p) ? (p as Role) : 'none';
  } catch (err) {
    if (statusOf(err) === 404) return 'none'; // not a collaborator, or no such user
    throw err;
  }
}
