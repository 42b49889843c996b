/**
 * Secondary rate limits are observed, never provoked: every request of the run passes through
 * one hook (targets/octokit.ts) that records any secondary limit it meets. This scenario runs
 * last and reports their shape, or that none was met.
 */
import type { Scenario } from '../types.ts';

export const secondaryLimitShape: Scenario = {
  name: 'secondary rate limit (observed when met)',
  assumption: { row: 'Secondary rate limits' },
  claim: 'not met in this run',
  needs: [],
  routes: [],
  requests: 0,
  async run(ctx) {
    const met = ctx.target.limitsMet;
    if (met.length === 0) return { answer: 'not met in this run', unobserved: true };
    const shapes = met.map((m) => `${m.status}, retry-after ${m.retryAfter ?? 'absent'}, x-ratelimit-remaining ${m.remaining ?? 'absent'}`);
    return { answer: [...new Set(shapes)].join(' / '), detail: met[0]!.message };
  },
};
