/**
 * The kit's Octokit: plain @octokit/rest, with no retry and no throttling (they would hide the
 * answers the kit is here to see), recording every secondary rate limit it meets.
 */
import { Octokit } from '@octokit/rest';
import type { LimitMet } from '../types.ts';

interface HookError {
  status?: number;
  response?: { data?: { message?: string }; headers?: Record<string, string | undefined> };
}

/** `auth` a token, or a function signing a fresh App JWT for each request (a JWT lives ten minutes at most). */
export function kitOctokit(baseUrl: string, auth: string | (() => string), limitsMet: LimitMet[]): Octokit {
  const octokit = new Octokit({ baseUrl, ...(typeof auth === 'string' ? { auth } : {}), userAgent: 'baton-conformance', log: { debug() {}, info() {}, warn() {}, error() {} } });
  if (typeof auth === 'function') {
    octokit.hook.before('request', (options) => {
      options.headers.authorization = `bearer ${auth()}`;
    });
  }
  octokit.hook.error('request', (thrown) => {
    const error = thrown as HookError;
    const message = error.response?.data?.message ?? '';
    if ((error.status === 403 || error.status === 429) && /secondary rate limit/i.test(message)) {
      const headers = error.response?.headers ?? {};
      limitsMet.push({ status: error.status, message, retryAfter: headers['retry-after'] ?? null, remaining: headers['x-ratelimit-remaining'] ?? null });
    }
    throw thrown;
  });
  return octokit;
}
