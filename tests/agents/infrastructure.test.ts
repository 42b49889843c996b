// Which failed agent runs are infrastructure failures (what a fallback agent is for) and which
// are failures of the work, on the failure shapes the fake CLIs print as the real ones do
// (tests/fixtures/fake-agents/README.md): each backend's own words for refused credentials,
// quota, network, and a CLI that is missing or dies before any output.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../src/agents/backends/index.ts';
import { infrastructureCause } from '../../src/agents/infrastructure.ts';
import { WorkerSetupError } from '../../src/agents/preflight.ts';
import { parseResult } from '../../src/agents/result.ts';
import { runWorker } from '../../src/agents/worker.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { backendScenario } from './helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

const setup = (uses: Backend, env: NodeJS.ProcessEnv = {}) => backendScenario(uses, env, cleanup);

/**
 * Runs a fake CLI once with the arguments baton gives the real one, and classifies what it
 * printed the way the worker does (the backend's parser reads the CLI's own failure report).
 */
function classifyFake(uses: Backend, behaviour: object | null, env: NodeJS.ProcessEnv = {}) {
  const { repo, f } = setup(uses, env);
  f.script(behaviour ? [behaviour] : [{}]);
  const backend = backendFor(uses);
  const inv = backend.invocation({ uses, env: {} }, 'Fix the bug.', { tmpDir: f.dir, writes: true, root: process.getuid?.() === 0 });
  for (const [path, content] of Object.entries(inv.files ?? {})) writeFileSync(path, content);
  const r = spawnSync(inv.argv[0]!, inv.argv.slice(1), { cwd: repo.dir, env: { ...f.env, ...inv.env }, input: inv.stdin ?? '', encoding: 'utf8' });
  const reported = backend.parse(r.stdout, r.stderr).error;
  return { cause: infrastructureCause({ backend: uses, code: r.status, stdout: r.stdout, stderr: r.stderr, reported }), code: r.status, reported, stderr: r.stderr };
}

describe('infrastructure failures, per backend, on the shapes the CLIs print', () => {
  it('claude: no usable credentials → is_error "Not logged in · Please run /login" (claude 2.1.332, contract-tested), exit 1 → authentication', () => {
    const r = classifyFake('claude-code', null, { ANTHROPIC_API_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.reported).toContain('Not logged in · Please run /login');
    expect(r.cause).toBe('authentication');
  });

  it('claude: stopped at --max-turns (error_max_turns, exit 1) is the work, not the backend', () => {
    expect(classifyFake('claude-code', { maxTurnsHit: true }).cause).toBeUndefined();
  });

  it('codex: no CODEX_API_KEY → turn.failed "unexpected status 401 Unauthorized", exit 1 → authentication', () => {
    const r = classifyFake('codex', null, { CODEX_API_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.reported).toMatch(/^codex turn failed: unexpected status 401 Unauthorized/);
    expect(r.cause).toBe('authentication');
  });

  it('codex: 429 → quota; reconnects used up on a dropped stream → network; a turn failing on the task → the work', () => {
    expect(classifyFake('codex', { turnFailed: 'exceeded retry limit, last status: 429 Too Many Requests' }).cause).toBe('quota');
    expect(classifyFake('codex', { reconnects: 5, turnFailed: 'stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)' }).cause).toBe('network');
    expect(classifyFake('codex', { turnFailed: 'the model refused to continue this conversation' }).cause).toBeUndefined();
  });

  it('gemini: no auth method → exit 41 with its JSON error on stderr → authentication (through the worker)', async () => {
    const { repo, f, task } = setup('gemini', { GEMINI_API_KEY: '' });
    mkdirSync(join(f.env.HOME!, '.gemini'), { recursive: true });
    writeFileSync(join(f.env.HOME!, '.gemini', 'oauth_creds.json'), '{}');
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toMatch(/code 41/);
    expect(run.result.infrastructure).toBe('authentication');
  });

  it('aider: litellm.AuthenticationError → authentication, litellm.RateLimitError → quota, although aider exits 0 (through the worker)', async () => {
    for (const [apiError, cause] of [['auth', 'authentication'], ['quota', 'quota']] as const) {
      const { repo, f, task } = setup('aider');
      f.script([{ apiError }]);
      const run = await runWorker(task, { cwd: repo.dir, env: f.env });
      expect(run.result.status).toBe('crashed');
      expect(run.result.infrastructure).toBe(cause);
    }
  });

  it('opencode: a ProviderAuthError event → authentication; an APIError with status 429 → quota', () => {
    // opencode session/message-v2.ts: session errors are NamedErrors { name, data: { message, statusCode? } },
    // printed by `run --format json` as { type: "error", error }.
    const parse = (error: object) => backendFor('opencode').parse(`${JSON.stringify({ type: 'step_start', part: {} })}\n${JSON.stringify({ type: 'error', sessionID: 'ses_1', error })}\n`, '').error;
    const auth = parse({ name: 'ProviderAuthError', data: { providerID: 'anthropic', message: 'Check your API key' } });
    expect(auth).toBe('opencode error (ProviderAuthError): Check your API key');
    expect(infrastructureCause({ backend: 'opencode', code: 1, stdout: '', stderr: '', reported: auth })).toBe('authentication');
    const quota = parse({ name: 'APIError', data: { message: 'Too Many Requests', statusCode: 429, isRetryable: true } });
    expect(infrastructureCause({ backend: 'opencode', code: 1, stdout: '', stderr: '', reported: quota })).toBe('quota');
    const work = parse({ name: 'MessageOutputLengthError', data: {} });
    expect(infrastructureCause({ backend: 'opencode', code: 1, stdout: '', stderr: '', reported: work })).toBeUndefined();
  });

  it('copilot: "No authentication information found." on stderr, exit 1 → authentication', () => {
    // The token is checked by preflight; the CLI's own refusal (a gh login that no longer works) says the same.
    const r = classifyFake('copilot', null, { COPILOT_GITHUB_TOKEN: '' });
    expect(r.stderr).toContain('No authentication information found.');
    expect(r.cause).toBe('authentication');
  });

  it('preflight: a CLI not on PATH → cli-missing; no credentials, or ones the CLI refuses → authentication', async () => {
    // A PATH with git and a shell only: a codex installed on this machine must not be found.
    const bin = mkdtempSync(join(tmpdir(), 'baton-bin-'));
    cleanup.push(bin);
    for (const tool of ['git', 'sh']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
    const missing = setup('codex', { PATH: bin });
    const e1 = await runWorker(missing.task, { cwd: missing.repo.dir, env: missing.f.env }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(WorkerSetupError);
    expect((e1 as WorkerSetupError).infrastructure).toBe('cli-missing');
    const nokey = setup('claude-code', { ANTHROPIC_API_KEY: '' });
    const e2 = await runWorker(nokey.task, { cwd: nokey.repo.dir, env: nokey.f.env }).catch((e: unknown) => e);
    expect((e2 as WorkerSetupError).infrastructure).toBe('authentication');
    const classic = setup('copilot', { COPILOT_GITHUB_TOKEN: 'ghp_0123456789abcdef0123456789abcdef0123' });
    const e3 = await runWorker(classic.task, { cwd: classic.repo.dir, env: classic.f.env }).catch((e: unknown) => e);
    expect((e3 as WorkerSetupError).infrastructure).toBe('authentication');
  });

  it('a CLI that dies before printing anything → cli-crashed; one that changed files first did work', async () => {
    const { repo, f, task } = setup('claude-code');
    f.script([{ exit: 139, crash: 'Segmentation fault (core dumped)\n' }]);
    expect((await runWorker(task, { cwd: repo.dir, env: f.env })).result.infrastructure).toBe('cli-crashed');
    f.script([{ exit: 139, crash: 'Segmentation fault (core dumped)\n', write: { 'src/a.ts': 'export const a = 2;\n' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.infrastructure).toBeUndefined();
  });
});

describe('failures of the work are never infrastructure', () => {
  it('invalid output after the re-prompts, and a timeout', async () => {
    const { repo, f, task } = setup('claude-code');
    f.script([{ reply: { summary: 42 } }]);
    const invalid = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(invalid.result.status).toBe('invalid-output');
    expect(invalid.result.infrastructure).toBeUndefined();
    f.script([{ hang: true }]);
    const slow = await runWorker({ ...task, timeoutMinutes: 0.01 }, { cwd: repo.dir, env: f.env, killGraceMs: 100 });
    expect(slow.result.status).toBe('timed-out');
    expect(slow.result.infrastructure).toBeUndefined();
  });

  it('a result artifact cannot claim a cause baton does not know, nor one on a success', () => {
    const base = { version: 1, run: 'r', step: 's', slot: '0', attempt: 1, base: 'b', backend: 'codex', changes: [], outputs: null, error: 'x', usage: {} };
    expect(parseResult(JSON.stringify({ ...base, status: 'crashed', infrastructure: 'quota' })).infrastructure).toBe('quota');
    expect(parseResult(JSON.stringify({ ...base, status: 'crashed', infrastructure: 'gremlins' })).infrastructure).toBeUndefined();
    expect(parseResult(JSON.stringify({ ...base, status: 'succeeded', infrastructure: 'quota' })).infrastructure).toBeUndefined();
  });
});
