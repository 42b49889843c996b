// Faults on demand (5xx, secondary rate limits, stale reads, seeded random faults),
// token permissions as GitHub enforces them, and the request log.
import { generateKeyPairSync, createSign } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';

let emu: Emulator;
const owner = 'acme';
const repo = 'widgets';

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo);
  await emu.createRepo(owner, 'gadgets');
});

afterEach(() => {
  emu.faults.clear();
  expect(emu.violations.splice(0)).toEqual([]);
});

afterAll(async () => emu.close());

function client(permissions: Record<string, 'read' | 'write'>, name = repo): Octokit {
  return new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo: name, permissions }) });
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; data: unknown; headers: Record<string, string> }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status: number; response?: { data: unknown; headers: Record<string, string> } };
    return { status: e.status, data: e.response?.data, headers: e.response?.headers ?? {} };
  }
  throw new Error('expected the request to fail');
}

describe('API faults', () => {
  it('answers 5xx for the chosen route, then recovers', async () => {
    const octokit = client({ issues: 'write' });
    emu.faults.add({ kind: 'server-error', route: 'POST /repos/{owner}/{repo}/issues', status: 502, times: 2 });
    expect((await failure(octokit.issues.create({ owner, repo, title: 'a' }))).status).toBe(502);
    expect((await failure(octokit.issues.create({ owner, repo, title: 'a' }))).status).toBe(502);
    expect((await octokit.issues.create({ owner, repo, title: 'a' })).status).toBe(201);
    expect(emu.faults.injected.filter((f) => f.kind === 'server-error')).toHaveLength(2);
    expect(emu.requestLog.filter((e) => e.fault === 'server-error')).toHaveLength(2);
  });

  it.each([
    [403, 7],
    [403, null],
    [429, 7],
    [429, null],
  ] as const)('answers a secondary rate limit as GitHub does: %i, retry-after %s', async (code, retryAfter) => {
    const octokit = client({ issues: 'read' });
    emu.faults.add({ kind: 'secondary-rate-limit', route: '*', status: code, retryAfter });
    const { status, data, headers } = await failure(octokit.issues.listForRepo({ owner, repo }));
    expect(status).toBe(code);
    expect(headers['retry-after']).toBe(retryAfter === null ? undefined : String(retryAfter));
    // Not the primary limit: requests remain in the hour.
    expect(Number(headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
    expect(data).toMatchObject({ message: expect.stringMatching(/^You have exceeded a secondary rate limit\. Please wait a few minutes/), documentation_url: expect.stringContaining('secondary-rate-limits') });
  });

  it('answers the primary rate limit with remaining 0 and the reset time, naming the installation', async () => {
    const octokit = client({ issues: 'read' });
    emu.faults.add({ kind: 'primary-rate-limit', route: '*', resetIn: 30 });
    const { status, data, headers } = await failure(octokit.issues.listForRepo({ owner, repo }));
    expect(status).toBe(403);
    expect(headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(headers['x-ratelimit-reset']) - Date.now() / 1000).toBeGreaterThan(25);
    expect(data).toMatchObject({ message: expect.stringMatching(/^API rate limit exceeded for installation ID \d+\./) });
  });

  it('misses a resource right after its creation (eventual consistency)', async () => {
    const octokit = client({ issues: 'write' });
    emu.faults.add({ kind: 'stale-read', route: 'POST /repos/{owner}/{repo}/issues', reads: 1 });
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'fresh' });
    expect((await failure(octokit.issues.get({ owner, repo, issue_number: issue.number }))).status).toBe(404);
    expect((await octokit.issues.get({ owner, repo, issue_number: issue.number })).data.title).toBe('fresh');
  });

  it('injects random faults reproducibly from a seed', async () => {
    const octokit = client({ metadata: 'read' });
    const run = async () => {
      emu.faults.clear();
      emu.faults.seed(42);
      emu.faults.add({ kind: 'server-error', route: 'GET /repos/{owner}/{repo}', probability: 0.5 });
      const outcome: number[] = [];
      for (let i = 0; i < 12; i++) outcome.push(await octokit.repos.get({ owner, repo }).then((r) => r.status, (e: { status: number }) => e.status));
      return outcome;
    };
    const first = await run();
    expect(first).toContain(502);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });
});

describe('tokens and permissions', () => {
  it('refuses what the token’s permissions do not allow, like GitHub', async () => {
    const readOnly = client({ contents: 'read', issues: 'read' });
    const denied = await failure(readOnly.issues.create({ owner, repo, title: 'no' }));
    expect(denied).toMatchObject({ status: 403, data: { message: 'Resource not accessible by integration' } });
    expect((await readOnly.repos.getContent({ owner, repo, path: 'README.md' })).status).toBe(200);
    const noChecks = await failure(readOnly.checks.listForRef({ owner, repo, ref: 'main' }));
    expect(noChecks.status).toBe(403);
  });

  it('keeps a repository-scoped token out of other repositories', async () => {
    const scoped = client({ contents: 'write' }, 'gadgets');
    expect((await failure(scoped.repos.getContent({ owner, repo, path: 'README.md' }))).status).toBe(404);
    expect((await scoped.repos.getContent({ owner, repo: 'gadgets', path: 'README.md' })).status).toBe(200);
  });

  it('answers 401 for unknown tokens and anonymous writes', async () => {
    const bogus = new Octokit({ baseUrl: emu.apiUrl, auth: 'ghs_nope' });
    expect(await failure(bogus.repos.get({ owner, repo }))).toMatchObject({ status: 401, data: { message: 'Bad credentials' } });
    const anonymous = new Octokit({ baseUrl: emu.apiUrl });
    expect((await anonymous.repos.get({ owner, repo })).status).toBe(200);
    expect((await failure(anonymous.issues.create({ owner, repo, title: 'x' }))).status).toBe(401);
  });

  it('verifies app JWTs for real once the app key is registered', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const strict = await startEmulator({ appPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    try {
      const now = Math.floor(Date.now() / 1000);
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const unsigned = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat: now - 30, exp: now + 300, iss: 1 })}`;
      const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url');
      const good = new Octokit({ baseUrl: strict.apiUrl, auth: `${unsigned}.${signature}` });
      expect((await good.apps.getAuthenticated()).data?.slug).toBe('baton');
      const forged = new Octokit({ baseUrl: strict.apiUrl, auth: `${unsigned}.${Buffer.from('forged').toString('base64url')}` });
      expect((await failure(forged.apps.getAuthenticated())).status).toBe(401);
    } finally {
      await strict.close();
    }
  });

  it('logs each request with its route template, status and identity', async () => {
    const octokit = client({ issues: 'read' });
    const before = emu.requestLog.length;
    await octokit.issues.listForRepo({ owner, repo });
    await failure(octokit.issues.get({ owner, repo, issue_number: 424242 }));
    const entries = emu.requestLog.slice(before);
    expect(entries).toMatchObject([
      { method: 'GET', route: 'GET /repos/{owner}/{repo}/issues', status: 200, identity: `github-actions[bot]:acme/widgets` },
      { method: 'GET', route: 'GET /repos/{owner}/{repo}/issues/{issue_number}', status: 404 },
    ]);
  });
});
