// Contract: the real Claude Code CLI at the pinned version, run as baton runs it, against the fake.
import { afterEach, describe, expect, it } from 'vitest';
import { backendFor } from '../../../src/agents/backends/index.ts';
import { both, expectRanOnItsOwn, expectSameJsonShape, scenario, type Scenario } from './harness.ts';

const LIMIT = 45_000;
const claude = backendFor('claude-code');
/** The fields of the result object baton reads (claude-code.ts parse). */
const READ = ['type', 'subtype', 'is_error', 'result', 'total_cost_usd', 'usage.input_tokens', 'usage.output_tokens', 'usage.cache_creation_input_tokens', 'usage.cache_read_input_tokens', 'session_id'];
let s: Scenario | undefined;
afterEach(() => s?.cleanup());

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('claude-code (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const writes of [true, false]) {
    it(`takes every flag baton passes (${writes ? 'writes' : 'read-only, tools taken away'}), exits on its own without credentials: exit 1, is_error result on stdout`, async () => {
      s = await scenario('claude-code', { writes, spec: { model: 'claude-sonnet-4-5' } });
      const { real, fake } = await both('claude-code', s, LIMIT);
      expectRanOnItsOwn(real, LIMIT);
      expect(real.code).toBe(1);
      const result = JSON.parse(real.stdout);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: true, result: 'Not logged in · Please run /login' });

      expect(fake.code).toBe(real.code);
      expectSameJsonShape(result, JSON.parse(fake.stdout), READ);
      expect(fake.stderr).toBe(real.stderr);
      expect(claude.parse(fake.stdout, fake.stderr).error).toBe(claude.parse(real.stdout, real.stderr).error);
    });
  }

  it('with verbose on in the user settings, prints one JSON array ending in the result', async () => {
    s = await scenario('claude-code', { homeFiles: { '.claude/settings.json': JSON.stringify({ verbose: true }) } });
    const { real, fake } = await both('claude-code', s, LIMIT);
    expectRanOnItsOwn(real, LIMIT);
    const messages = JSON.parse(real.stdout);
    expect(Array.isArray(messages)).toBe(true);
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expect(messages.at(-1)).toMatchObject({ type: 'result', is_error: true });

    const fakeMessages = JSON.parse(fake.stdout);
    expect(fake.code).toBe(real.code);
    expect(fakeMessages[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expectSameJsonShape(messages.at(-1), fakeMessages.at(-1), READ);
    expect(claude.parse(fake.stdout, fake.stderr).error).toBe(claude.parse(real.stdout, real.stderr).error);
  });

  it.runIf(process.getuid?.() === 0)('as root without IS_SANDBOX, refuses bypassPermissions', async () => {
    s = await scenario('claude-code', { env: { IS_SANDBOX: undefined } });
    const { real, fake } = await both('claude-code', s, LIMIT);
    expect(real.code).toBe(1);
    expect(real.stderr).toBe('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n');
    expect(fake.code).toBe(1);
    expect(fake.stderr).toBe(real.stderr);
  });

  it('refuses a flag it does not have, and so does the fake', async () => {
    s = await scenario('claude-code', { spec: { args: ['--bogus-flag'] } });
    const { real, fake } = await both('claude-code', s, LIMIT);
    expect(real).toMatchObject({ code: 1, stdout: '', stderr: "error: unknown option '--bogus-flag'\n" });
    expect(fake).toMatchObject({ code: real.code, stdout: '', stderr: real.stderr });
  });

  it('refuses a permission mode it does not have, listing the ones it has', async () => {
    s = await scenario('claude-code', { spec: { args: ['--permission-mode', 'bogus'] } });
    const { real, fake } = await both('claude-code', s, LIMIT);
    expect(real.code).toBe(1);
    expect(real.stderr).toMatch(/^error: option '--permission-mode <mode>' argument 'bogus' is invalid\. Allowed choices are /);
    expect(fake).toMatchObject({ code: real.code, stdout: real.stdout, stderr: real.stderr });
  });
});
