// The permission baton looks up, as GitHub's collaborator permission API answers it: a
// 404 (accounts that are not users, e.g. `Copilot`) is "no role", never an error thrown
// out of the event; a public repository's `read` for anyone stays `read`.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitHubClient, RepoContext } from '../../src/hosts/github/client.ts';
import { permissionOf } from '../../src/hosts/github/permission.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

const owner = 'acme';
const repo = 'widgets';
let emu: Emulator;
let gh: RepoContext;

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo, undefined, { visibility: 'private' });
  emu.store.setRole(owner, repo, 'mo', 'maintain');
  emu.store.user('Copilot', 'Bot');
  const octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { metadata: 'read' }, login: 'baton[bot]' }) });
  gh = { octokit: octokit as unknown as GitHubClient, owner, repo, defaultBranch: 'main', botLogin: 'baton[bot]', workerWorkflow: 'baton-worker.yml' };
});
afterAll(async () => {
  await emu?.close();
});

describe('permissionOf', () => {
  it('is `none` for accounts that are not users (GitHub answers 404)', async () => {
    expect(await permissionOf(gh, 'Copilot')).toBe('none');
    expect(await permissionOf(gh, 'renovate[bot]')).toBe('none');
  });

  it('reads the finer role, and `read` for anyone on a public repository only', async () => {
    expect(await permissionOf(gh, 'mo')).toBe('maintain');
    expect(await permissionOf(gh, 'stranger')).toBe('none');
    emu.store.setVisibility(owner, repo, 'public');
    expect(await permissionOf(gh, 'stranger')).toBe('read');
    expect(await permissionOf(gh, 'mo')).toBe('maintain');
    emu.store.setVisibility(owner, repo, 'private');
  });
});
