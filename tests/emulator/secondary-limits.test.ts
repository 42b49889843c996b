// GitHub's secondary limits on content creation, counted for the App under each reading of whose
// count it is (readings.ts `secondaryLimitIdentity`, secondary-limits.ts): the App's writes through
// two installations, against 80 a minute (docs) and issue creation's 20 a minute (cli/cli#4801).
// GitHub's minute compressed to 6 s (timeScale 0.1): long beside the requests below.
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';
import { BY_HAND_READING_VALUES } from './readings.ts';
import { CONTENT_CREATION_LIMITS, ENDPOINT_LIMITS } from './secondary-limits.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  emu?.assertNoViolations();
  await emu?.close();
  emu = undefined;
});

const ISSUES = 'POST /repos/{owner}/{repo}/issues';

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string; headers: Record<string, string> }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status: number; response?: { data: { message: string }; headers: Record<string, string> } };
    return { status: e.status, message: e.response?.data.message ?? '', headers: e.response?.headers ?? {} };
  }
  throw new Error('expected a refusal');
}

describe.each(BY_HAND_READING_VALUES.secondaryLimitIdentity)('emulator: secondary limits counted per %s', (reading) => {
  async function start(): Promise<{ acme: Octokit; globex: Octokit; e: Emulator }> {
    const e = (emu = await startEmulator({ readings: { secondaryLimitIdentity: reading }, secondaryLimits: { timeScale: 0.1 } }));
    await e.createRepo('acme', 'widgets');
    await e.createRepo('globex', 'gadgets');
    const token = (owner: string) => e.auth.issue(e.store.installation(owner).id, { issues: 'write' }, undefined).token;
    return { acme: new Octokit({ baseUrl: e.apiUrl, auth: token('acme') }), globex: new Octokit({ baseUrl: e.apiUrl, auth: token('globex') }), e };
  }

  it("80 writes of the App's in a minute through one installation: the 81st there is refused as GitHub refuses it, and the other installation's first is refused unless the count is the installation's", async () => {
    const { acme, globex, e } = await start();
    const { number } = (await acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'A thread' })).data;
    const comment = (c: Octokit, owner: string, repo: string, n: number) => c.rest.issues.createComment({ owner, repo, issue_number: n, body: 'hi' });
    for (let i = 1; i < CONTENT_CREATION_LIMITS.perMinute; i++) await comment(acme, 'acme', 'widgets', number);
    // Reads are not content: never counted.
    await acme.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: number });

    const over = await refusal(comment(acme, 'acme', 'widgets', number));
    expect(over.status).toBe(403);
    expect(over.message).toMatch(/secondary rate limit and have been temporarily blocked from content creation/);
    expect(over.headers['retry-after']).toBeUndefined();
    expect(Number(over.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);

    if (reading === 'installation') {
      expect((await globex.rest.issues.create({ owner: 'globex', repo: 'gadgets', title: 'Elsewhere' })).status).toBe(201);
    } else {
      expect((await refusal(globex.rest.issues.create({ owner: 'globex', repo: 'gadgets', title: 'Elsewhere' }))).status).toBe(403);
    }
    // People's writes are theirs, not the App's.
    const alice = new Octokit({ baseUrl: e.apiUrl, auth: e.auth.userToken('alice') });
    e.store.setRole('acme', 'widgets', 'alice', 'write');
    expect((await alice.rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: number, body: 'me' })).status).toBe(201);
    expect(e.requestLog.filter((r) => r.fault === 'secondary-limit')).toHaveLength(reading === 'installation' ? 1 : 2);
  });

  it('issue creation has its lower limit (20 a minute), counted with the same identity; other writes go on', async () => {
    const { acme, globex } = await start();
    const limit = ENDPOINT_LIMITS[ISSUES]!.perMinute;
    for (let i = 0; i < limit; i++) await acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: `Issue ${i}` });
    expect((await refusal(acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'One more' }))).status).toBe(403);
    // Within the general limit, another endpoint still takes the App's writes.
    expect((await acme.rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: 1, body: 'still here' })).status).toBe(201);
    const elsewhere = globex.rest.issues.create({ owner: 'globex', repo: 'gadgets', title: 'Elsewhere' });
    if (reading === 'installation') expect((await elsewhere).status).toBe(201);
    else expect((await refusal(elsewhere)).status).toBe(403);
  });

  it('the window slides: room again a minute after the first write', async () => {
    const { acme, e } = await start();
    e.secondaryLimits.timeScale = 0.01; // a minute of 600 ms
    const limit = ENDPOINT_LIMITS[ISSUES]!.perMinute;
    const first = performance.now();
    for (let i = 0; i < limit; i++) await acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: `Issue ${i}` });
    await refusal(acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Refused' }));
    await new Promise((r) => setTimeout(r, Math.max(0, first + 600 + 20 - performance.now())));
    expect((await acme.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Room again' })).status).toBe(201);
  });
});
