// The Action's Octokit (modes run and apply) against every shape of rate limit GitHub
// sends: 403 or 429, with or without `retry-after`, and the primary limit (remaining 0,
// reset time). Each is waited out and retried; without `retry-after` the wait is at least
// a minute. Time is compressed (a scaled sleep), never skipped.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeOctokit, type Sleep } from '../../src/action/github.ts';
import type { GitHubClient } from '../../src/hosts/github/client.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

const owner = 'acme';
const repo = 'widgets';
let emu: Emulator;
let token: string;

/** Records every wait asked for and waits 1/1000 of it. */
function scaledSleep(): { waits: number[]; sleep: Sleep } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), new Promise((r) => setTimeout(r, ms / 1000))) };
}

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo);
  token = emu.auth.mint({ owner, repo, permissions: { issues: 'write', metadata: 'read' }, login: 'github-actions[bot]' });
});
afterEach(() => emu.faults.clear());
afterAll(async () => {
  await emu?.close();
});

const CREATE = 'POST /repos/{owner}/{repo}/issues';
const create = (octokit: GitHubClient) => octokit.request(CREATE, { owner, repo, title: 'limited' });

describe('the Action waits out rate limits', () => {
  it.each([
    ['403 with retry-after', { status: 403, retryAfter: 7 }, 7_000],
    ['403 without retry-after', { status: 403, retryAfter: null }, 60_000],
    ['429 with retry-after', { status: 429, retryAfter: 7 }, 7_000],
    ['429 without retry-after', { status: 429, retryAfter: null }, 60_000],
    ['content creation blocked, no retry-after', { status: 403, retryAfter: null, contentCreation: true }, 60_000],
  ] as const)('secondary limit, %s: waited out, retried', async (_name, shape, atLeast) => {
    const { waits, sleep } = scaledSleep();
    const before = emu.faults.injected.length;
    emu.faults.add({ kind: 'secondary-rate-limit', route: CREATE, ...shape });
    const res = await create(makeOctokit(token, emu.apiUrl, sleep));
    expect(res.status).toBe(201);
    expect(emu.faults.injected.slice(before).map((f) => f.kind)).toEqual(['secondary-rate-limit']);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(atLeast);
  });

  it.each([403, 429])('primary limit (%i, remaining 0): retried once the reset has passed', async (status) => {
    const { waits, sleep } = scaledSleep();
    emu.faults.add({ kind: 'primary-rate-limit', route: CREATE, status, resetIn: 30 });
    const res = await create(makeOctokit(token, emu.apiUrl, sleep));
    expect(res.status).toBe(201);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(29_000);
    expect(waits[0]).toBeLessThanOrEqual(32_000);
  });

  it('a 403 that is a refusal is not retried', async () => {
    const { waits, sleep } = scaledSleep();
    const readOnly = emu.auth.mint({ owner, repo, permissions: { issues: 'read', metadata: 'read' }, login: 'github-actions[bot]' });
    await expect(create(makeOctokit(readOnly, emu.apiUrl, sleep))).rejects.toMatchObject({ status: 403 });
    expect(waits).toEqual([]);
  });

  it('gives up after three limits in a row, having waited each out', async () => {
    const { waits, sleep } = scaledSleep();
    emu.faults.add({ kind: 'secondary-rate-limit', route: CREATE, status: 429, retryAfter: null, times: 4 });
    await expect(create(makeOctokit(token, emu.apiUrl, sleep))).rejects.toMatchObject({ status: 429 });
    expect(waits).toEqual([60_000, 60_000, 60_000]);
  });
});
