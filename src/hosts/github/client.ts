// What every GitHub-side piece needs: an authenticated Octokit for one installation, the
// repository, and who baton is there. Kept narrow (Prow's habit) so that each module
// states what it touches and tests can pass any Octokit.
import type { ProbotOctokit } from 'probot';
import type { ManifestCache } from './manifests.ts';

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
  /** The manifests cache of the App this context belongs to (manifests.ts); none: the process's shared one. */
  manifests?: ManifestCache;
  /**
   * Who baton writes as, which decides what can ever write workflow files (workflow-files.ts):
   * the baton App (absent: the App), an App's token in Actions (`--app-token`), or an Actions
   * job's GITHUB_TOKEN.
   */
  writesAs?: 'app' | 'app-token' | 'github-token';
  /** Keep the branches of finished runs (BATON_KEEP_BRANCHES, the Action's `keep-branches`): none is deleted. */
  keepBranches?: boolean;
  /** Comments a tracking issue takes before baton continues on a new one (app/handlers/tracking-issue.ts; default 2,000). */
  trackingIssueComments?: number;
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

/**
 * Whether GitHub refused a request for good: a 4xx that waiting does not cure. Not 401
 * (credentials are renewed), 429 or a 403 secondary rate limit (waited out, then retried).
 */
export function refusedForGood(err: unknown): boolean {
  const status = statusOf(err);
  if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 429) return false;
  return !(status === 403 && /rate limit/i.test(messageOf(err)));
}
