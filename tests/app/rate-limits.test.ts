// The App's Octokit (production batonOctokit: Probot's with plugin-throttling and
// plugin-retry) against every shape of rate limit GitHub sends, on the request that creates
// the run's first check run: waited out and retried, the run unharmed. (Not on comments:
// the throttling plugin spaces those 3 s apart anyway, which would hide a missing wait.) The harness
// compresses time (TEST_TIME_SCALE: a second of `retry-after` is 10 ms) but never skips a wait:
// without `retry-after` the wait is a minute, 600 ms here.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiFault } from '../emulator/faults.ts';
import { startHarness, TEST_TIME_SCALE, type Harness } from './harness.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;
/** What a second of GitHub's time is in the harness's Octokit. */
const SECOND_MS = 1000 * TEST_TIME_SCALE;
const CHECK_RUN = 'POST /repos/{owner}/{repo}/check-runs';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

describe('app: rate limits are waited out', () => {
  it.each<[string, ApiFault, number]>([
    ['secondary, 403 with retry-after', { kind: 'secondary-rate-limit', status: 403, retryAfter: 20 }, 20],
    ['secondary, 403 without retry-after', { kind: 'secondary-rate-limit', status: 403, retryAfter: null }, 60],
    ['secondary, 429 with retry-after', { kind: 'secondary-rate-limit', status: 429, retryAfter: 20 }, 20],
    ['secondary, 429 without retry-after', { kind: 'secondary-rate-limit', status: 429, retryAfter: null }, 60],
    ['secondary, content creation blocked', { kind: 'secondary-rate-limit', status: 403, retryAfter: null, contentCreation: true }, 60],
    ['primary, 403 remaining 0', { kind: 'primary-rate-limit', status: 403, resetIn: 30 }, 29],
    ['primary, 429 remaining 0', { kind: 'primary-rate-limit', status: 429, resetIn: 30 }, 29],
  ])('%s: the check run is created after the wait, the run succeeds', async (_name, fault, seconds) => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    h.emu.faults.add({ ...fault, route: CHECK_RUN });
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Hi', body: '' })).data;
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:hello'] });
    await h.settle();

    const posts = h.emu.requestLog.filter((r) => r.route === CHECK_RUN && r.identity.startsWith('installation:'));
    const limited = posts.findIndex((r) => r.fault !== undefined);
    expect(limited).toBeGreaterThanOrEqual(0);
    const retry = posts[limited + 1]!;
    expect(retry.status).toBe(201);
    expect(Date.parse(retry.at) - Date.parse(posts[limited]!.at)).toBeGreaterThanOrEqual(seconds * SECOND_MS);

    const records = (await h.comments(issue.number)).filter((b) => b.includes('baton:record'));
    expect(records).toHaveLength(1);
    expect(records[0]).toContain(`run \`hello-${issue.number}-1\` — succeeded`);
    h.emu.assertNoViolations();
  }, 40_000);
});
