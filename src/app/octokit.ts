// The Octokit the app runs with: Probot's, whose throttling plugin as `run()` configures it
// only logs a secondary rate limit and gives up — the webhook's work is then lost, since
// GitHub does not redeliver. Here a secondary limit is waited out and retried (a few times).
import { ProbotOctokit } from 'probot';

export const SECONDARY_LIMIT_RETRIES = 3;

export function batonOctokit(extra: Record<string, unknown> = {}): typeof ProbotOctokit {
  return ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: {
      ...(options.throttle as object | undefined),
      onSecondaryRateLimit: (_after: number, _request: unknown, _octokit: unknown, retryCount: number) => retryCount < SECONDARY_LIMIT_RETRIES,
      ...(extra.throttle as object | undefined),
    },
    ...(extra.retry ? { retry: extra.retry } : {}),
  }));
}
