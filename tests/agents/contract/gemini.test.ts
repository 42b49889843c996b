// Contract: the real gemini CLI at the pinned version, run as baton runs it, against the fake.
import { afterEach, describe, expect, it } from 'vitest';
import { backendFor } from '../../../src/agents/backends/index.ts';
import { both, expectRanOnItsOwn, expectSameJsonShape, plain, scenario, trailingJson, type Scenario } from './harness.ts';

const LIMIT = 45_000;
const gemini = backendFor('gemini');
let s: Scenario | undefined;
afterEach(() => s?.cleanup());

/** stderr without its JSON: the notices printed before it. */
const notices = (stderr: string) => plain(stderr).split('\n').filter((l) => l && !/^[\s{}[\]"]/.test(l));

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('gemini (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const writes of [true, false]) {
    it(`takes every flag baton passes (${writes ? 'yolo' : 'read-only'}), exits on its own without credentials: 41, JSON error on stderr`, async () => {
      s = await scenario('gemini', { writes, spec: { model: 'gemini-2.5-pro' } });
      const { real, fake } = await both('gemini', s, LIMIT);
      expectRanOnItsOwn(real, LIMIT);
      expect(real.code).toBe(41);
      expect(real.stdout).toBe('');
      const err = trailingJson(real.stderr) as any;
      expect(err.error).toMatchObject({ type: 'Error', code: 41 });
      expect(err.error.message).toMatch(/^Please set an Auth method in your .*settings\.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA$/);
      expect(notices(real.stderr)).toEqual(writes ? ['YOLO mode is enabled. All tool calls will be automatically approved.'] : []);

      expect(fake.code).toBe(real.code);
      expect(fake.stdout).toBe(real.stdout);
      expectSameJsonShape(err, trailingJson(fake.stderr), ['session_id', 'error.type', 'error.message', 'error.code']);
      expect(notices(fake.stderr)).toEqual(notices(real.stderr));
      // baton reads the same failure out of both.
      expect(gemini.parse(fake.stdout, fake.stderr).error).toBe(gemini.parse(real.stdout, real.stderr).error);
    });
  }

  it('in an untrusted folder (no GEMINI_CLI_TRUST_WORKSPACE) with a key: drops yolo to default and exits 55', async () => {
    s = await scenario('gemini', { env: { GEMINI_CLI_TRUST_WORKSPACE: undefined, GEMINI_API_KEY: 'contract-test-not-a-key' } });
    const { real, fake } = await both('gemini', s, LIMIT);
    expectRanOnItsOwn(real, LIMIT);
    expect(real.code).toBe(55);
    expect(real.stdout).toBe('');
    expect(notices(real.stderr)).toContain('Approval mode overridden to "default" because the current folder is not trusted.');
    expect(plain(real.stderr)).toContain('Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.');
    expect(fake.code).toBe(55);
    expect(fake.stdout).toBe('');
    expect(notices(fake.stderr)).toEqual(notices(real.stderr));
  });

  it('without credentials the auth check comes first, even in an untrusted folder (41, not 55)', async () => {
    s = await scenario('gemini', { env: { GEMINI_CLI_TRUST_WORKSPACE: undefined } });
    const { real, fake } = await both('gemini', s, LIMIT);
    expect(real.code).toBe(41);
    expect(fake.code).toBe(41);
    expect(notices(fake.stderr)).toEqual(notices(real.stderr));
  });

  it('refuses a flag it does not have, and so does the fake', async () => {
    s = await scenario('gemini', { spec: { args: ['--bogus-flag'] } });
    const { real, fake } = await both('gemini', s, LIMIT);
    expect(real.code).toBe(1);
    expect(real.stdout).toBe('');
    expect(real.stderr.split('\n')[0]).toBe('Unknown arguments: bogus-flag, bogusFlag');
    expect(fake.code).toBe(real.code);
    expect(fake.stdout).toBe('');
    expect(fake.stderr.split('\n')[0]).toBe(real.stderr.split('\n')[0]);
    expect(fake.stderr).toContain('Usage: gemini [options] [command]');
    expect(real.stderr).toContain('Usage: gemini [options] [command]');
  });
});
