// What every GitHub-side piece needs: an authenticated Octokit for one installation, the
// repository, and who baton is there. Kept narrow (Prow's habit) so that each module
// states what it touches and tests can pass any Octokit.
import type { ProbotOctokit } from 'probot';

export type GitHubClient = InstanceType<typeof ProbotOctokit>;

export interface RepoContext {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  defaultBranch: string;
  /** baton's own login (`<app-slug>[bot]`): only its comments carry trusted state. */
  botLogin: string;
  /** File name of the worker workflow in `.github/workflows/`. */
  workerWorkflow: string;
  /** Optional HMAC secret for the state block. */
  stateSecret?: string;
}

/** HTTP status of an Octokit error, or undefined for anything else. */
export function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

export function messageOf(err: unknown): string {
  const e = err as { message?: string; response?: { data?: { message?: string } } };
  return e?.response?.data?.message ?? e?.message ?? String(err);
}
