// Contract: the real codex CLI at the pinned version, run as baton runs it, against the fake.
// Offline, codex never gives up ("Reconnecting... waiting for network" for minutes), so the
// API is a loopback server answering as OpenAI's does to a request without a key (401,
// "Missing bearer or basic authentication in header"), named in ~/.codex/config.toml.
import { afterEach, describe, expect, it } from 'vitest';
import { backendFor } from '../../../src/agents/backends/index.ts';
import { both, expectRanOnItsOwn, jsonl, loopbackApi, realBinary, run, scenario, STEP_SCHEMA, type Scenario } from './harness.ts';

const LIMIT = 90_000;
const codex = backendFor('codex');
const NO_KEY = { error: { message: 'Missing bearer or basic authentication in header', type: 'invalid_request_error', param: null, code: null } };
let s: Scenario | undefined;
let api: Awaited<ReturnType<typeof loopbackApi>> | undefined;
afterEach(async () => {
  s?.cleanup();
  await api?.close();
  api = undefined;
});

/** An event's type and, for errors, what kind of message it carries (retry n/5, fallback, final). */
function kind(e: any): string {
  const message = String(e.message ?? e.item?.message ?? e.error?.message ?? '');
  const retry = /^Reconnecting\.\.\. (\d)\/5 \(/.exec(message);
  const what = retry ? `retry ${retry[1]}/5` : message.startsWith('Falling back from WebSockets to HTTPS transport.') ? 'fallback to https' : message ? 'message' : '';
  return [e.type, e.item?.type, what].filter(Boolean).join(' ');
}

async function noKeyScenario(writes: boolean, args: string[] = []) {
  api = await loopbackApi(401, NO_KEY);
  s = await scenario('codex', { writes, spec: { model: 'gpt-5.1-codex', args }, homeFiles: { '.codex/config.toml': `openai_base_url = "${api.url}/v1"\n` } });
  return s;
}

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('codex (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const writes of [true, false]) {
    it(`takes every flag baton passes (--sandbox ${writes ? 'workspace-write' : 'read-only'}), and without a key retries, then fails the turn, exit 1`, async () => {
      const { real, fake } = await both('codex', await noKeyScenario(writes), LIMIT);
      expectRanOnItsOwn(real, LIMIT);
      expect(api!.requests()).toBeGreaterThan(0);
      expect(real.code).toBe(1);
      const events = jsonl(real.stdout);
      const last = events.at(-1);
      expect(last).toEqual({ type: 'turn.failed', error: { message: `unexpected status 401 Unauthorized: Missing bearer or basic authentication in header, url: ${api!.url}/v1/responses` } });
      expect(events.filter((e) => e.type === 'error').length).toBeGreaterThan(1);

      expect(fake.code).toBe(real.code);
      // The same events in the same order; only the model-metadata warning for a model the
      // offline CLI has no metadata for is left out of the fake.
      const modelWarning = (e: any) => e.item?.type === 'error' && /^Model metadata for/.test(e.item.message);
      expect(jsonl(fake.stdout).map(kind)).toEqual(events.filter((e) => !modelWarning(e)).map(kind));
      expect(jsonl(fake.stdout).at(-1)).toEqual(last);
      expect(codex.parse(fake.stdout, fake.stderr).error).toBe(codex.parse(real.stdout, real.stderr).error);
    });
  }

  it('refuses a flag `codex exec` does not have, and so does the fake', async () => {
    const { real, fake } = await both('codex', await noKeyScenario(true, ['--bogus-flag']), LIMIT);
    expect(real.code).toBe(2);
    expect(real.stdout).toBe('');
    expect(real.stderr).toContain("error: unexpected argument '--bogus-flag' found");
    expect(fake.code).toBe(real.code);
    expect(fake.stdout).toBe('');
    expect(fake.stderr).toContain("error: unexpected argument '--bogus-flag' found");
    expect(api!.requests()).toBe(0);
  });

  it('refuses an unknown sandbox mode, listing the ones it has', async () => {
    const s2 = await noKeyScenario(true);
    const argv = s2.invocation.argv.slice(1).map((a) => (a === 'workspace-write' ? 'bogus' : a));
    const { real, fake } = await both('codex', s2, LIMIT, argv);
    expect(real.code).toBe(2);
    const line = (t: string) => t.split('\n').filter((l) => l.startsWith('error:') || l.includes('possible values'));
    expect(line(real.stderr)).toEqual(["error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'", '  [possible values: read-only, workspace-write, danger-full-access]']);
    expect(fake.code).toBe(2);
    expect(line(fake.stderr)).toEqual(line(real.stderr));
  });

  it('sends the step schema baton hands it with --output-schema to the API as a strict json_schema text format', async () => {
    const s2 = await noKeyScenario(true);
    expect(s2.invocation.argv).toContain('--output-schema');
    const real = await run(realBinary('codex'), s2, LIMIT);
    expectRanOnItsOwn(real, LIMIT);
    const sent = api!.bodies().map((b) => JSON.parse(b) as { text?: { format?: unknown } }).find((b) => b.text?.format);
    // Strict mode is why baton passes only schemas that fit it (src/agents/backends/strict-schema.ts).
    expect(sent?.text?.format).toMatchObject({ type: 'json_schema', strict: true, schema: STEP_SCHEMA });
  });
});

