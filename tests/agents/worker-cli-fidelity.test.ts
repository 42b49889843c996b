// gemini, opencode, aider and copilot through runWorker against fakes that refuse and do
// what the real CLIs at baton's pinned versions refuse and do (tests/fixtures/fake-agents/
// README.md names the source of each): untrusted folders, unreachable paths, mangled
// arguments, files written unasked, failures that exit 0, tokens the CLI refuses.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../src/agents/worker.ts';
import { WorkerSetupError } from '../../src/agents/preflight.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { backendScenario, fakes } from './helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

const setup = (uses: Backend, env: NodeJS.ProcessEnv = {}) => backendScenario(uses, env, cleanup);

describe('gemini', () => {
  it('works in a fresh (untrusted) checkout, gets the prompt on stdin and writes BATON_OUTPUT where its tools reach', async () => {
    const { repo, f, task } = setup('gemini');
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n' }, output: { summary: 'from the file' }, reply: 'Done.' }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.error).toBeNull();
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'from the file' });
    expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
    const [call] = f.log();
    expect(call!.prompt.startsWith(run.prompt)).toBe(true);
    // BATON_OUTPUT's folder reaches its tools by name (behind the sandbox ~/.gemini/tmp is the agent's home, out of the worker's reach).
    expect(call!.argv.slice(call!.argv.indexOf('--include-directories'))[1]).toMatch(/baton-worker-/);
  });

  it('says what failed when it exits 41 for want of auth (a stored login without a chosen method)', async () => {
    const { repo, f, task } = setup('gemini', { GEMINI_API_KEY: '' });
    mkdirSync(join(f.env.HOME!, '.gemini'), { recursive: true });
    writeFileSync(join(f.env.HOME!, '.gemini', 'oauth_creds.json'), '{}');
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toMatch(/^gemini exited with code 41: gemini error 41: Please set an Auth method/);
  });

  it('refuses before running when Vertex AI is named but not usable', async () => {
    const { repo, f, task } = setup('gemini', { GEMINI_API_KEY: '', GOOGLE_GENAI_USE_VERTEXAI: 'true' });
    const err = await runWorker(task, { cwd: repo.dir, env: f.env }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerSetupError);
    expect((err as Error).message).toContain('GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY');
  });
});

describe('opencode', () => {
  it('gets the prompt unmangled on stdin and writes BATON_OUTPUT inside the project, which is not a change', async () => {
    const { repo, f, task } = setup('opencode');
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n' }, output: { summary: 'from the file' }, reply: 'Done.' }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'from the file' });
    expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
    expect(f.log()[0]!.prompt.trim()).toBe(run.prompt.trim());
    expect(readdirSync(repo.dir).filter((n) => n.startsWith('.baton'))).toEqual([]);
  });

  it('runs a read-only step with its plan agent, which edits nothing', async () => {
    const { repo, f, task } = setup('opencode');
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n' }, reply: { summary: 'looked only' } }]);
    const run = await runWorker({ ...task, writes: false }, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'looked only' });
    expect(run.result.changes).toEqual([]);
  });
});

describe('aider', () => {
  it('leaves nothing of its own in the result: no .gitignore edit, histories, or tags cache', async () => {
    const { repo, f, task } = setup('aider');
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n' }, reply: { summary: 'fixed' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
    expect(existsSync(join(repo.dir, '.aider.tags.cache.v4'))).toBe(false);
  });

  it('fails the attempt when the provider refused the key, although aider exits 0', async () => {
    const { repo, f, task } = setup('aider');
    f.script([{ apiError: 'auth' }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toContain('not able to authenticate you');
    expect(f.log()).toHaveLength(1);
  });
});

describe('copilot', () => {
  it('refuses a classic personal access token before running, saying which token to use', async () => {
    const { repo, f, task } = setup('copilot', { COPILOT_GITHUB_TOKEN: 'ghp_0123456789abcdef0123456789abcdef0123' });
    const err = await runWorker(task, { cwd: repo.dir, env: f.env }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerSetupError);
    expect((err as Error).message).toMatch(/classic personal access token.*copilot-requests: write/);
    expect(f.log()).toHaveLength(0);
  });

  it('runs with the Actions GITHUB_TOKEN alone', async () => {
    const { repo, f, task } = setup('copilot', { COPILOT_GITHUB_TOKEN: '', GITHUB_TOKEN: 'ghs_actionsjobtoken' });
    f.script([{ reply: { summary: 'ok' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
  });
});

describe('the fakes hold baton to the real CLIs', () => {
  it('refuse a flag the real CLI does not have, in its own words', async () => {
    const { execFileSync } = await import('node:child_process');
    const f = fakes({ GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    cleanup.push(f.dir);
    const refused = (bin: string, ...args: string[]) => {
      try {
        execFileSync(bin, args, { env: f.env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
        return null;
      } catch (err) {
        const e = err as { status: number; stderr: string };
        return { code: e.status, stderr: e.stderr };
      }
    };
    expect(refused('aider', '--max-turns', '3')).toEqual({ code: 2, stderr: expect.stringContaining('aider: error: unrecognized arguments: --max-turns') });
    // The words are the real CLIs' own, confirmed by tests/agents/contract/.
    expect(refused('copilot', '--max-turns', '3', '-p', 'x')).toEqual({ code: 1, stderr: expect.stringMatching(/^error: Invalid command format\./) });
    expect(refused('gemini', '--max-turns', '3')).toEqual({ code: 1, stderr: expect.stringMatching(/^Unknown arguments: max-turns, maxTurns\nUsage: gemini/) });
    expect(refused('opencode', 'run', '--max-turns', '3')).toEqual({ code: 1, stderr: expect.stringMatching(/^opencode run \[message\.\.\]\n/) });
  });

  it('gemini refuses an untrusted folder (exit 55), downgrading yolo first', async () => {
    const { spawnSync } = await import('node:child_process');
    const f = fakes();
    cleanup.push(f.dir);
    const r = spawnSync('gemini', ['--approval-mode', 'yolo', '--prompt', 'x'], { env: f.env, encoding: 'utf8', input: '' });
    expect(r.status).toBe(55);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Approval mode overridden to "default" because the current folder is not trusted.\n');
    expect(r.stderr).toContain('Gemini CLI is not running in a trusted directory.');
  });
});
