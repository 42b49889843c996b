// claude and codex as the real CLIs behave at the versions baton pins (the fakes model each
// behaviour and name its source in tests/fixtures/fake-agents/README.md): verbose JSON arrays,
// max-turns failures, native structured output, the root refusal, codex's own key, its
// retryable errors, and a sandbox that cannot start.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../src/agents/backends/index.ts';
import { runWorker } from '../../src/agents/worker.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { FAKE_AGENTS, fakes, makeRepo, makeTask } from './helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

function setup(uses: Backend, extraEnv: NodeJS.ProcessEnv = {}, writes = true) {
  const repo = makeRepo();
  const f = fakes(extraEnv);
  cleanup.push(repo.dir, f.dir);
  const task = makeTask({ base: repo.base, writes, backend: { uses, env: {}, maxTurns: 12 } });
  return { repo, f, task };
}

describe('claude-code', () => {
  it('reads the result from the JSON array printed when verbose is on in the user settings', async () => {
    const { repo, f, task } = setup('claude-code');
    mkdirSync(join(f.env.HOME!, '.claude'));
    writeFileSync(join(f.env.HOME!, '.claude/settings.json'), JSON.stringify({ verbose: true }));
    f.script([{ reply: 'No JSON here.', structured: { summary: 'from the array' }, usage: { costUsd: 0.5, inputTokens: 10, outputTokens: 2 } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'from the array' });
    expect(run.result.usage.costUsd).toBe(0.5);
  });

  it('asks for native structured output with the step schema, and falls back to the message without it', async () => {
    const { repo, f, task } = setup('claude-code');
    f.script([{ reply: 'Done, nothing to show.', structured: { summary: 'native' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.outputs).toEqual({ summary: 'native' });
    const argv = f.log()[0]!.argv;
    expect(JSON.parse(argv[argv.indexOf('--json-schema') + 1]!)).toEqual(task.outputsSchema);
  });

  it('reports the reason of a max-turns stop (exit 1, error_max_turns, errors[])', async () => {
    const { repo, f, task } = setup('claude-code');
    f.script([{ write: { 'src/a.ts': 'export const a = 5;\n' }, maxTurnsHit: true }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toContain('error_max_turns');
    expect(run.result.error).toContain('Reached maximum number of turns (12)');
    expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
  });

  it('takes Bash away from a step that must not write', async () => {
    const { repo, f, task } = setup('claude-code', {}, false);
    f.script([{ reply: { summary: 'read only' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    const argv = f.log()[0]!.argv;
    expect(argv.slice(argv.indexOf('--disallowedTools') + 1)).toEqual(expect.arrayContaining(['Edit', 'Write', 'NotebookEdit', 'Bash']));
  });

  it('as root, says the job is the sandbox (IS_SANDBOX=1), which claude needs to skip permissions', () => {
    const inv = backendFor('claude-code').invocation({ uses: 'claude-code', env: {} }, 'p', { tmpDir: '/tmp/w', writes: true, root: true });
    expect(inv.env).toEqual({ IS_SANDBOX: '1' });
    expect(backendFor('claude-code').invocation({ uses: 'claude-code', env: {} }, 'p', { tmpDir: '/tmp/w', writes: true, root: false }).env).toEqual({});
    // The fake refuses bypassPermissions as root without it, as claude does.
    const f = fakes({ FAKE_AGENT_UID: '0' });
    cleanup.push(f.dir);
    const run = (env: NodeJS.ProcessEnv) => {
      try {
        execFileSync(join(FAKE_AGENTS, 'claude'), inv.argv.slice(1), { env, input: 'p', encoding: 'utf8', stdio: 'pipe' });
        return 'ok';
      } catch (e) {
        return String((e as { stderr: string }).stderr);
      }
    };
    expect(run(f.env)).toContain('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons');
    expect(run({ ...f.env, ...inv.env })).toBe('ok');
  });

  it('accepts a gateway token or a fully configured cloud provider as credentials', async () => {
    for (const env of [{ ANTHROPIC_AUTH_TOKEN: 'tok' }, { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1' }, { CLAUDE_CODE_USE_VERTEX: '1', CLOUD_ML_REGION: 'us-east5', ANTHROPIC_VERTEX_PROJECT_ID: 'p' }]) {
      const { repo, f, task } = setup('claude-code', { ANTHROPIC_API_KEY: '', ...env });
      f.script([{ reply: { summary: 'ok' } }]);
      expect((await runWorker(task, { cwd: repo.dir, env: f.env })).result.status).toBe('succeeded');
    }
  });
});

describe('codex', () => {
  it('goes on after retryable stream errors when the turn completes', async () => {
    const { repo, f, task } = setup('codex');
    f.script([{ reconnects: 2, reply: { summary: 'after reconnecting' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'after reconnecting' });
  });

  it('fails on a turn that fails', async () => {
    const { repo, f, task } = setup('codex');
    f.script([{ turnFailed: 'stream disconnected before completion: exceeded retry limit' }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toContain('exceeded retry limit');
  });

  it('fails an attempt whose sandbox could not start, saying how to fix the runner', async () => {
    const { repo, f, task } = setup('codex', { FAKE_CODEX_SANDBOX_BLOCKED: '1' });
    f.script([{ write: { 'src/a.ts': 'export const a = 9;\n' }, reply: { summary: 'nothing done' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(run.result.changes).toEqual([]);
  });

  it('reports an estimated cost from its tokens, marked as an estimate', async () => {
    const { repo, f, task } = setup('codex');
    task.backend = { ...task.backend!, model: 'gpt-5.1-codex' };
    f.script([{ reply: { summary: 'ok' }, usage: { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    // 600k × $1.25/M + 400k × $0.125/M + 100k × $10/M
    expect(run.result.usage).toEqual({ inputTokens: 1_000_000, outputTokens: 100_000, costUsd: 1.8, costEstimated: true });
  });

  it('refuses flags codex exec does not have, as the real CLI does', () => {
    const f = fakes();
    cleanup.push(f.dir);
    let err = '';
    try {
      execFileSync(join(FAKE_AGENTS, 'codex'), ['exec', '--json', '--ask-for-approval', 'never', '-'], { env: f.env, input: 'p', encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      err = String((e as { stderr: string }).stderr);
    }
    expect(err).toContain("error: unexpected argument '--ask-for-approval' found");
  });
});
