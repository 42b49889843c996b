// Every backend end to end through runWorker, with its fake CLI on PATH printing what the
// real one prints: a valid result, an invalid result then a valid retry, a crash and a
// timeout (both keep the partial changes).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../src/agents/worker.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { alive, fakes, makeRepo, makeTask } from './helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

function setup(uses: Backend, model?: string) {
  const repo = makeRepo();
  cleanup.push(repo.dir);
  const f = fakes();
  cleanup.push(f.dir);
  const task = makeTask({ base: repo.base, backend: { uses, env: {}, ...(model ? { model } : {}), maxTurns: 12 } });
  return { repo, f, task };
}

// opencode names models provider/model, and fails a provider it has no key for (as the real one does).
const CASES: { uses: Backend; binary: string; flags: string[]; cost: boolean; model?: string }[] = [
  { uses: 'claude-code', binary: 'claude', flags: ['-p', '--output-format', 'json', '--permission-mode', 'bypassPermissions', '--model', 'm-1', '--max-turns', '12'], cost: true },
  { uses: 'codex', binary: 'codex', flags: ['exec', '--json', '--sandbox', 'workspace-write', '--model', 'm-1', '-'], cost: false },
  { uses: 'aider', binary: 'aider', flags: ['--message-file', '--yes-always', '--no-auto-commits', '--model', 'm-1'], cost: true },
  { uses: 'opencode', binary: 'opencode', flags: ['run', '--format', 'json', '--model', 'anthropic/m-1'], cost: true, model: 'anthropic/m-1' },
  { uses: 'gemini', binary: 'gemini', flags: ['--output-format', 'json', '--approval-mode', 'yolo', '--model', 'm-1', '--prompt'], cost: false },
  { uses: 'copilot', binary: 'copilot', flags: ['-s', '--no-ask-user', '--allow-all-tools', '--model=m-1', '-p'], cost: false },
];

describe.each(CASES)('$uses backend with a fake `$binary`', ({ uses, binary, flags, cost, model }) => {
  it('runs the CLI with its own non-interactive flags and returns a valid result', async () => {
    const { repo, f, task } = setup(uses, model ?? 'm-1');
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n', 'src/new.ts': 'export {};\n' }, reply: { summary: 'fixed a' } }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });

    const [call] = f.log();
    expect(call!.name).toBe(binary);
    for (const flag of flags) expect(call!.argv).toContain(flag);
    expect(call!.prompt).toContain('Fix the bug in src/a.ts.');
    expect(call!.prompt).toContain('BATON_OUTPUT');
    expect(call!.prompt).toContain('"required"');

    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'fixed a' });
    expect(run.result.backend).toBe(uses);
    expect(run.result.changes).toEqual([
      { path: 'src/a.ts', status: 'modified', mode: '100644' },
      { path: 'src/new.ts', status: 'added', mode: '100644' },
    ]);
    expect(Buffer.from(run.files.get('src/a.ts')!).toString()).toBe('export const a = 2;\n');
    if (uses !== 'copilot') expect(run.result.usage.inputTokens).toBe(1200);
    if (cost) expect(run.result.usage.costUsd).toBeCloseTo(0.0123, 3);
    expect(run.transcript).toContain(`$ ${binary}`);
  });

  it('re-prompts with the validation error after an invalid result, then accepts a valid one', async () => {
    const { repo, f, task } = setup(uses);
    f.script([
      { write: { 'src/a.ts': 'export const a = 3;\n' }, reply: { summary: 42, extra: true } },
      { reply: { summary: 'second try' } },
    ]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('succeeded');
    expect(run.result.outputs).toEqual({ summary: 'second try' });
    const calls = f.log();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain('Your previous answer was not accepted');
    expect(calls[1]!.prompt).toContain('`/summary` must be string');
    expect(calls[1]!.prompt).toContain('not allowed: `extra`');
    expect(run.result.changes.map((c) => c.path)).toEqual(['src/a.ts']);
    if (uses !== 'copilot') expect(run.result.usage.inputTokens).toBe(2400);
  });

  it('reports a crash and still lists the partial changes', async () => {
    const { repo, f, task } = setup(uses);
    f.script([{ write: { 'src/half.ts': 'export const half = true;\n' }, delete: ['README.md'], exit: 1, crash: `${binary}: API Error: 529 overloaded\n` }]);
    const run = await runWorker(task, { cwd: repo.dir, env: f.env });
    expect(run.result.status).toBe('crashed');
    expect(run.result.error).toContain(`${binary} exited with code 1`);
    expect(run.result.error).toContain('529 overloaded');
    expect(run.result.changes).toEqual([
      { path: 'README.md', status: 'deleted', mode: '100644' },
      { path: 'src/half.ts', status: 'added', mode: '100644' },
    ]);
    expect(f.log()).toHaveLength(1);
  });
});

// Concurrent: each waits out a time limit, and they need not wait for one another.
describe('the time limit', () => {
  it.concurrent.each(CASES)('$uses: stops the whole process tree at the time limit and keeps the partial changes', async ({ uses }) => {
    const { repo, f, task } = setup(uses);
    // Outside the checkout, so that it is not a change.
    const pidFile = join(f.env.HOME!, 'pids.json');
    f.script([{ write: { 'src/partial.ts': 'export const p = 1;\n' }, hang: true, pidFile }]);
    const started = Date.now();
    const run = await runWorker({ ...task, timeoutMinutes: 0.05 }, { cwd: repo.dir, env: f.env, killGraceMs: 300 });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(run.result.status).toBe('timed-out');
    expect(run.result.error).toContain('did not finish within');
    expect(run.result.changes).toEqual([{ path: 'src/partial.ts', status: 'added', mode: '100644' }]);
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number; child: number };
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(pids.agent)).toBe(false);
    expect(alive(pids.child)).toBe(false);
  });
});
