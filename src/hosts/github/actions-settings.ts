// The repository setting that Actions-only mode with GITHUB_TOKEN depends on: a job's
// GITHUB_TOKEN may open (or approve) pull requests only when "Allow GitHub Actions to create
// and approve pull requests" is on — off by default — else GitHub answers 403 "GitHub Actions
// is not permitted to create or approve pull requests." (docs "Managing GitHub Actions
// settings for a repository"). Said by the PR step when refused, by `baton init --mode
// actions` and by `baton doctor`.

export const ACTIONS_PR_SETTING = 'Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"';

/** What to tell a user before (or when) a pull request opened with GITHUB_TOKEN is refused. */
export const ACTIONS_PR_ADVICE =
  `baton opens the run's pull request with the job's GITHUB_TOKEN, which GitHub refuses unless ${ACTIONS_PR_SETTING} is on (off by default). ` +
  'Pull requests opened with GITHUB_TOKEN also start no CI; `baton init --mode actions --app-token` acts as a GitHub App instead.';

/** GitHub's refusal of a pull request (or an approval) made with GITHUB_TOKEN while the setting is off. */
export function isActionsPrRefusal(status: number | undefined, message: string): boolean {
  return status === 403 && /not permitted to create or approve pull requests/i.test(message);
}
