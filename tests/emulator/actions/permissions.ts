// The GITHUB_TOKEN's permissions for a job, computed as GitHub does: the job's
// `permissions`, else the workflow's, else the restricted default (contents and
// packages read). Naming some scopes sets every other scope to none; metadata is
// always readable.
import type { TokenPermissions } from './host.ts';
import type { Permissions } from './workflow-file.ts';

/** Workflow scope names → installation-token permission names. */
const SCOPES: Record<string, string> = {
  actions: 'actions',
  attestations: 'attestations',
  checks: 'checks',
  contents: 'contents',
  deployments: 'deployments',
  discussions: 'discussions',
  issues: 'issues',
  models: 'models',
  packages: 'packages',
  pages: 'pages',
  'pull-requests': 'pull_requests',
  'repository-projects': 'repository_projects',
  'security-events': 'security_events',
  statuses: 'statuses',
};

/** `id-token` mints OIDC tokens, not API access: it has no token scope. */
const NOT_API_SCOPES = new Set(['id-token']);

/** Every scope a workflow's `permissions:` may name. */
export const PERMISSION_SCOPES: ReadonlySet<string> = new Set([...Object.keys(SCOPES), ...NOT_API_SCOPES]);

export const RESTRICTED_DEFAULT: Permissions = { contents: 'read', packages: 'read' };

export function tokenPermissions(job: Permissions | undefined, workflow: Permissions | undefined): TokenPermissions {
  const declared = job ?? workflow ?? RESTRICTED_DEFAULT;
  const out: TokenPermissions = { metadata: 'read' };
  if (declared === 'read-all' || declared === 'write-all') {
    const level = declared === 'read-all' ? 'read' : 'write';
    for (const scope of Object.values(SCOPES)) out[scope] = level;
    return out;
  }
  for (const [scope, level] of Object.entries(declared)) {
    if (NOT_API_SCOPES.has(scope) || level === 'none') continue;
    const name = SCOPES[scope];
    if (!name) throw new Error(`unknown permission scope '${scope}'`);
    out[name] = level;
  }
  return out;
}

/** The token with every `write` lowered to `read` when `readOnly` (a fork's pull request: forks.ts). */
export function readOnlyIf(readOnly: boolean, permissions: TokenPermissions): TokenPermissions {
  if (!readOnly) return permissions;
  return Object.fromEntries(Object.entries(permissions).map(([scope, level]) => [scope, level === 'write' ? 'read' : level])) as TokenPermissions;
}
