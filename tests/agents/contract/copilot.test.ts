// Contract: the real GitHub Copilot CLI at the pinned version, run as baton runs it, against the fake.
import { afterEach, describe, expect, it } from 'vitest';
import { both, expectRanOnItsOwn, scenario, type Run, type Scenario } from './harness.ts';

const LIMIT = 45_000;
let s: Scenario | undefined;
afterEach(() => s?.cleanup());

/**
 * stderr without the timing note copilot adds when unpacking itself into a fresh HOME is
 * slow ("Package extraction took 5332ms"): it depends on the machine's load, not on baton.
 */
const stderrOf = (r: Run) => r.stderr.replace(/^Package extraction took \d+ms\n/m, '');
const firstLine = (t: string) => t.split('\n')[0];

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('copilot (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const writes of [true, false]) {
    it(`takes every flag baton passes (${writes ? 'all tools' : '--deny-tool=write'}), exits on its own without a token: exit 1, the reason on stderr`, async () => {
      s = await scenario('copilot', { writes, spec: { model: 'gpt-5' } });
      const { real, fake } = await both('copilot', s, LIMIT);
      expectRanOnItsOwn(real, LIMIT);
      expect(real.code).toBe(1);
      expect(real.stdout).toBe('');
      expect(firstLine(stderrOf(real))).toBe('Error: No authentication information found.');
      expect(stderrOf(real)).toContain('Set the COPILOT_GITHUB_TOKEN, GH_TOKEN, or GITHUB_TOKEN environment variable');

      expect(fake.code).toBe(real.code);
      expect(fake.stdout).toBe('');
      expect(fake.stderr).toBe(stderrOf(real));
    });
  }

  it('refuses a classic personal access token (ghp_) before any request', async () => {
    s = await scenario('copilot', { env: { GH_TOKEN: 'ghp_0123456789abcdef0123456789abcdef0123' } });
    const { real, fake } = await both('copilot', s, LIMIT);
    expectRanOnItsOwn(real, LIMIT);
    expect(real.code).toBe(1);
    expect(firstLine(stderrOf(real))).toBe('Error: Classic Personal Access Tokens (ghp_) are not supported by Copilot.');
    expect(fake.code).toBe(real.code);
    expect(fake.stdout).toBe(real.stdout);
    expect(fake.stderr).toBe(stderrOf(real));
  });

  it('refuses a flag it does not have, and so does the fake', async () => {
    s = await scenario('copilot', { spec: { args: ['--bogus-flag'] } });
    const { real, fake } = await both('copilot', s, LIMIT);
    expect(real.code).toBe(1);
    expect(real.stdout).toBe('');
    expect(firstLine(stderrOf(real))).toBe('error: Invalid command format.');
    expect(fake).toMatchObject({ code: real.code, stdout: '', stderr: stderrOf(real) });
  });
});
