// How long to wait before retrying a failed request, per GitHub's docs "Rate limits for
// the REST API" (§ Exceeding the rate limit): a limit comes as a 403 or a 429. With
// `retry-after`, wait that long; with `x-ratelimit-remaining: 0` (the primary limit),
// until `x-ratelimit-reset`; otherwise — a secondary limit without `retry-after` — at
// least one minute. A 403 that is none of these is a refusal and is not retried.

export const SECONDARY_LIMIT_FALLBACK_MS = 60_000;

interface FailedRequest {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** Milliseconds to wait before retry `attempt` (0-based), or undefined when not to retry. */
export function retryDelayMs(err: unknown, attempt: number, now: number = Date.now()): number | undefined {
  const e = err as FailedRequest;
  const status = e.status;
  const headers = e.response?.headers ?? {};
  if (status === 403 || status === 429) {
    const after = headers['retry-after'];
    if (after !== undefined && after !== '' && Number.isFinite(Number(after))) return Number(after) * 1000;
    if (String(headers['x-ratelimit-remaining']) === '0') {
      const reset = Number(headers['x-ratelimit-reset']);
      // One second past the reset, as GitHub's docs advise.
      return Number.isFinite(reset) && reset > 0 ? Math.max(reset * 1000 - now, 0) + 1000 : SECONDARY_LIMIT_FALLBACK_MS;
    }
    if (status === 429 || /secondary rate limit/i.test(e.message ?? '')) return SECONDARY_LIMIT_FALLBACK_MS;
    return undefined;
  }
  if (status !== undefined && status >= 500) return 250 * 2 ** attempt;
  return undefined;
}
