// Turns a webhook's repository and installation into the RepoContext the host needs.
import type { GitHubClient, RepoContext } from '../hosts/github/client.ts';
import type { ManifestCache } from '../hosts/github/manifests.ts';

export interface AppConfig {
  /** Worker workflow file in `.github/workflows/` (default `baton-worker.yml`). */
  workerWorkflow: string;
  stateSecret?: string;
  now: () => number;
  /** This App's manifests cache (trigger-labels.ts creates it with its label reader). */
  manifests?: ManifestCache;
  /** BATON_KEEP_BRANCHES: the branches of finished runs are never deleted. */
  keepBranches?: boolean;
  /** Comments a tracking issue takes before baton continues on a new one (tests set it; default 2,000). */
  trackingIssueComments?: number;
}

export interface RepositoryPayload {
  name: string;
  owner: { login: string };
  default_branch?: string;
}

export function repoContext(octokit: GitHubClient, repository: RepositoryPayload, botLogin: string, config: AppConfig): RepoContext {
  return {
    octokit,
    owner: repository.owner.login,
    repo: repository.name,
    defaultBranch: repository.default_branch ?? 'main',
    botLogin,
    workerWorkflow: config.workerWorkflow,
    ...(config.stateSecret ? { stateSecret: config.stateSecret } : {}),
    ...(config.manifests ? { manifests: config.manifests } : {}),
    ...(config.keepBranches ? { keepBranches: true } : {}),
    ...(config.trackingIssueComments ? { trackingIssueComments: config.trackingIssueComments } : {}),
  };
}

/** Delivery ids are the event keys of things people do (docs/architecture.md §2). */
export function deliveryKey(id: string): string {
  return `delivery:${id}`;
}
