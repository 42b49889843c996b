// Turns a webhook's repository and installation into the RepoContext the host needs.
import type { GitHubClient, RepoContext } from '../hosts/github/client.ts';

export interface AppConfig {
  /** Worker workflow file in `.github/workflows/` (default `baton-worker.yml`). */
  workerWorkflow: string;
  stateSecret?: string;
  now: () => number;
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
  };
}

/** Delivery ids are the event keys of things people do (docs/architecture.md §2). */
export function deliveryKey(id: string): string {
  return `delivery:${id}`;
}
