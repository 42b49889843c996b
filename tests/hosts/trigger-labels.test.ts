// ensureTriggerLabels against the emulator: a label another replica (or a person) made
// between the look and the create is as good as made; a label GitHub refuses is logged,
// never thrown, and tried again at the next look.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitHubClient } from '../../src/hosts/github/client.ts';
import { ensureTriggerLabels } from '../../src/hosts/github/trigger-labels.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
});
afterAll(async () => {
  await emu?.close();
});

function client(beforeCreate?: () => Promise<void>): GitHubClient {
  const quiet = () => {}; // the refusals below are expected
  const auth = emu.auth.mint({ owner: 'acme', repo: 'widgets', permissions: { issues: 'write', metadata: 'read' }, login: 'baton[bot]' });
  const octokit = new Octokit({ baseUrl: emu.apiUrl, auth, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
  octokit.hook.before('request', async (o) => {
    if (o.method === 'POST' && String(o.url).endsWith('/labels')) await beforeCreate?.();
  });
  return octokit as unknown as GitHubClient;
}

function logs() {
  const lines: string[] = [];
  return { lines, log: { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) } };
}

describe('ensureTriggerLabels (emulator)', () => {
  it('takes a 422 already_exists from a create that lost the race as done', async () => {
    const person = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('acme') });
    const gh = { octokit: client(async () => void (await person.issues.createLabel({ owner: 'acme', repo: 'widgets', name: 'baton:race', color: '000000' }))), owner: 'acme', repo: 'widgets' };
    const { lines, log } = logs();
    await ensureTriggerLabels(gh, [{ name: 'baton:race', color: '5319e7', description: 'Starts a workflow' }], log);
    expect(lines).toEqual([]);
    expect(emu.repo('acme', 'widgets').labels.get('baton:race')?.color).toBe('000000');
  });

  it('logs a label GitHub refuses, throws nothing, and tries again next time', async () => {
    const gh = { octokit: client(), owner: 'acme', repo: 'widgets' };
    const { lines, log } = logs();
    const long = { name: 'baton:' + 'x'.repeat(50), color: '5319e7', description: 'Starts a workflow' };
    await ensureTriggerLabels(gh, [long], log);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`warn could not create the trigger label "${long.name}" on acme/widgets: 422 Validation Failed`);
    expect(lines[0]).toContain('name is too long (maximum is 50 characters)');
    await ensureTriggerLabels(gh, [long], log);
    expect(lines).toHaveLength(2);
  });
});
