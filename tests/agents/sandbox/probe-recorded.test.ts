// The probe reports a protection the setup step could not put in place with the setup's own
// reason (a program missing from the runner's image), not with a failed read of what is not there.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeFence, type FenceState } from '../../../src/agents/sandbox/fence.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stateFile(state: FenceState): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-probe-'));
  dirs.push(dir);
  const path = join(dir, 'fence.json');
  writeFileSync(path, JSON.stringify(state));
  return path;
}

describe('probeFence on a machine whose setup step recorded a missing protection', () => {
  it("says why the packet filter is missing in the setup's words", () => {
    const statePath = stateFile({
      version: 2,
      user: { name: 'baton-agent', uid: 47_123, gid: 47_123, home: '/nonexistent' },
      runner: 'runner',
      nft: '',
      workspace: '/nonexistent',
      proxyPort: 20_123,
      missing: [{ protection: 'packet-filter', reason: 'nft is not installed on this runner image' }],
    });
    const probe = probeFence({ platform: 'linux', statePath, env: { PATH: process.env.PATH } });
    expect(probe.enforced).not.toContain('packet-filter');
    expect(probe.missing.find((m) => m.protection === 'packet-filter')?.reason).toBe('the setup step could not put it in place: nft is not installed on this runner image');
  });
});
