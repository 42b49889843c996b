// The Octokit the app runs with: Probot's, whose throttling plugin as `run()` configures it
// only logs a secondary rate limit and gives up — the webhook's work is then lost, since
// GitHub does not redeliver. Here every limit is waited out and retried (a few times).
// plugin-throttling recognises each shape GitHub sends (docs "Rate limits for the REST
// API"): a 403 or 429 whose message names a secondary limit, waiting `retry-after` or, when
// that header is missing, a minute (`fallbackSecondaryRateRetryAfter`); and the primary
// limit (`x-ratelimit-remaining: 0`), waiting until `x-ratelimit-reset`.
import { ProbotOctokit } from 'probot';

export const SECONDARY_LIMIT_RETRIES = 3;
export const PRIMARY_LIMIT_RETRIES = 3;

type LimitHandler = (after: number, request: unknown, octokit: unknown, retryCount: number) => boolean;

export function batonOctokit(extra: Record<string, unknown> = {}): typeof ProbotOctokit {
  const onSecondaryRateLimit: LimitHandler = (_after, _request, _octokit, retryCount) => retryCount < SECONDARY_LIMIT_RETRIES;
  const onRateLimit: LimitHandler = (_after, _request, _octokit, retryCount) => retryCount < PRIMARY_LIMIT_RETRIES;
  return ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: {
      ...(options.throttle as object | undefined),
      onSecondaryRateLimit,
      onRateLimit,
      ...(extra.throttle as object | undefined),
    },
    ...(extra.retry ? { retry: extra.retry } : {}),
  }));
}
