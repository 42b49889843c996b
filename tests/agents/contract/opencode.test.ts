// Contract: the real opencode CLI at the pinned version, run as baton runs it, against the fake.
import { afterEach, describe, expect, it } from 'vitest';
import { backendFor } from '../../../src/agents/backends/index.ts';
import { both, expectRanOnItsOwn, expectSameJsonShape, jsonl, scenario, type Scenario } from './harness.ts';

const LIMIT = 60_000;
const opencode = backendFor('opencode');
let s: Scenario | undefined;
afterEach(() => s?.cleanup());

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('opencode (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const writes of [true, false]) {
    it(`takes every flag baton passes (${writes ? 'build agent' : '--agent plan'}); a model whose provider has no key ends in one error event, exit 1`, async () => {
      s = await scenario('opencode', { writes, spec: { model: 'anthropic/claude-sonnet-4-5' } });
      const { real, fake } = await both('opencode', s, LIMIT);
      expectRanOnItsOwn(real, LIMIT);
      expect(real.code).toBe(1);
      const events = jsonl(real.stdout);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'error', error: { name: 'UnknownError', data: { message: 'Unexpected server error. Check server logs for details.' } } });

      expect(fake.code).toBe(real.code);
      expect(jsonl(fake.stdout)).toHaveLength(1);
      expectSameJsonShape(events[0], jsonl(fake.stdout)[0], ['type', 'timestamp', 'sessionID', 'error.name', 'error.data.message']);
      expect(fake.stderr).toBe(real.stderr);
      expect(opencode.parse(fake.stdout, fake.stderr).error).toBe(opencode.parse(real.stdout, real.stderr).error);
    });
  }

  it('refuses a flag `opencode run` does not have (its usage on stderr, exit 1), and so does the fake', async () => {
    s = await scenario('opencode', { spec: { args: ['--bogus-flag'] } });
    const { real, fake } = await both('opencode', s, LIMIT);
    expect(real.code).toBe(1);
    expect(real.stdout).toBe('');
    const head = (t: string) => t.split('\n').slice(0, 3);
    expect(head(real.stderr)).toEqual(['opencode run [message..]', '', 'run opencode with a message']);
    expect(fake.code).toBe(real.code);
    expect(fake.stdout).toBe('');
    expect(head(fake.stderr)).toEqual(head(real.stderr));
  });
});
