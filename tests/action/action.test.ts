// The bundled Action run the way a runner runs it: `node dist/action.js` with INPUT_*,
// GITHUB_WORKSPACE (a real git checkout), GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
// RUNNER_TEMP, and the fake agent CLIs on PATH.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readResultDir } from '../../src/agents/result.ts';
import { encodeTask } from '../../src/agents/task.ts';
import { FILES_VERSION_VAR, ownStamp } from '../../src/compat.ts';
import { alive, fakes, makeRepo, makeTask } from '../agents/helpers.ts';

const ACTION = fileURLToPath(new URL('../../dist/action.js', import.meta.url));
const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

interface Runner {
  temp: string;
  output: string;
  summary: string;
  env: NodeJS.ProcessEnv;
}

/**
 * What a runner gives a JavaScript action, minus the network. Mode agent runs from a `run:`
 * step (the worker workflow `baton init` writes), which the runner gives no runtime token.
 */
function runner(workspace: string, inputs: Record<string, string>, extra: NodeJS.ProcessEnv = {}): Runner {
  const temp = mkdtempSync(join(tmpdir(), 'baton-runner-'));
  cleanup.push(temp);
  const output = join(temp, 'output.txt');
  const summary = join(temp, 'summary.md');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: temp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_REPOSITORY: 'octo/demo',
    RUNNER_TEMP: temp,
    // The worker workflow's own variable (init/workflows.ts): the files this baton writes.
    [FILES_VERSION_VAR]: ownStamp().version,
    ...(inputs.mode === 'agent' ? {} : { ACTIONS_RUNTIME_TOKEN: 'runtime-secret' }),
    ...extra,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return { temp, output, summary, env };
}

function runAction(
  env: NodeJS.ProcessEnv,
  cwd: string,
  onStart?: (pid: number) => void,
): Promise<{ code: number | null; stdout: string; stderr: string; firstLineMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstLineMs = -1;
    const child = spawn(process.execPath, [ACTION], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    onStart?.(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (firstLineMs < 0) firstLineMs = performance.now() - started;
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr, firstLineMs }));
  });
}

/** GITHUB_OUTPUT holds `name<<delimiter\nvalue\ndelimiter` records. */
function outputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of readFileSync(file, 'utf8').matchAll(/^(.+?)<<(\S+)\n([\s\S]*?)\n\2$/gm)) out[m[1]!] = m[3]!;
  return out;
}

describe('mode agent', () => {
  it('runs the task in the workspace and writes the result dir, outputs and job summary', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes();
    cleanup.push(f.dir);
    f.script([{ write: { 'src/a.ts': 'export const a = 2;\n', 'bin/tool': '#!/bin/sh\n' }, chmod: { 'bin/tool': '755' }, reply: { summary: 'fixed the bug' }, usage: { costUsd: 0.42, inputTokens: 3000, outputTokens: 120 } }]);
    const task = makeTask({ base: repo.base, backend: { uses: 'claude-code', model: 'claude-sonnet-4-5', env: {} } });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) }, f.env);
    // As the runner evaluates the default `${{ runner.temp }}/baton-result`.
    r.env['INPUT_RESULT-DIR'] = join(r.temp, 'baton-result');

    const run = await runAction(r.env, repo.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('baton agent: baton fix-issue-42-1 implement #1');
    expect(run.stdout).toContain('baton agent: succeeded');

    const bundle = readResultDir(join(r.temp, 'baton-result'));
    expect(bundle.result).toMatchObject({ status: 'succeeded', outputs: { summary: 'fixed the bug' }, usage: { costUsd: 0.42, inputTokens: 3000, outputTokens: 120 }, backend: 'claude-code', base: repo.base });
    expect(bundle.result.changes).toEqual([
      { path: 'bin/tool', status: 'added', mode: '100755' },
      { path: 'src/a.ts', status: 'modified', mode: '100644' },
    ]);
    expect(Buffer.from(bundle.files.get('src/a.ts')!).toString()).toBe('export const a = 2;\n');
    expect(bundle.transcript).toContain('"total_cost_usd":0.42');

    expect(outputs(r.output)).toEqual({ status: 'succeeded', 'result-dir': join(r.temp, 'baton-result') });
    const summary = readFileSync(r.summary, 'utf8');
    expect(summary).toContain('### ✅ baton · fix-issue · implement #1 — succeeded');
    expect(summary).toContain('agent `coder` (claude-code, claude-sonnet-4-5)');
    expect(summary).toContain('$0.4200');
    expect(summary).toContain('Fix the bug in src/a.ts.');
    expect(summary).toContain('"summary": "fixed the bug"');
    expect(summary).toContain('#### Changes: 2 files, +2 −1');
    expect(summary).toContain('| `bin/tool` | added | executable | 1 | 0 |');
    expect(f.log()[0]!.argv).toEqual(expect.arrayContaining(['-p', '--output-format', 'json', '--model', 'claude-sonnet-4-5']));
  });

  it('refuses to start an agent from a process holding the runner\'s or the job\'s token, saying why in the result', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes();
    cleanup.push(f.dir);
    const task = makeTask({ base: repo.base });
    // As a `uses:` step: the runner's runtime token, the Action's token input.
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task), token: 'ghs_jobtoken123' }, { ...f.env, ACTIONS_RUNTIME_TOKEN: 'runtime-secret-42' });
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::baton: mode `agent` was started by a process holding ACTIONS_RUNTIME_TOKEN, INPUT_TOKEN');
    expect(run.stdout).toContain('regenerate .github/workflows/baton-worker.yml');
    expect(f.log()).toEqual([]);
    const bundle = readResultDir(join(r.temp, 'baton-result'));
    expect(bundle.result).toMatchObject({ status: 'crashed', changes: [] });
    expect(bundle.result.error).toContain('/proc/<pid>/environ');
    expect(JSON.stringify(bundle)).not.toMatch(/runtime-secret-42|ghs_jobtoken123/);
  });

  it('refuses a task of another baton line, or worker workflow files with no version, before the agent starts, naming the versions', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes();
    cleanup.push(f.dir);
    const own = ownStamp();
    const other = own.version.startsWith('0.') ? '0.999.0' : '999.0.0';
    const cases = [
      { task: encodeTask(makeTask({ base: repo.base }), { version: other, format: own.format }), env: {}, says: `The worker is baton ${own.version} (task/result format ${own.format}), but this run is baton ${other}` },
      { task: encodeTask(makeTask({ base: repo.base })), env: { [FILES_VERSION_VAR]: '' }, says: 'was written by a baton that did not stamp its files' },
    ];
    for (const c of cases) {
      const r = runner(repo.dir, { mode: 'agent', task: c.task }, { ...f.env, ...c.env });
      const run = await runAction(r.env, repo.dir);
      expect(run.code).toBe(1);
      expect(f.log()).toEqual([]);
      const bundle = readResultDir(join(r.temp, 'baton-result'));
      expect(bundle.result).toMatchObject({ status: 'crashed', changes: [], baton: { version: own.version, format: own.format } });
      expect(bundle.result.error).toContain(c.says);
      expect(bundle.result.error).toContain('update`');
    }
  });

  it('undoes what the agent wrote into the step\'s command files and the result folder', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    // The agent has no GITHUB_ENV & co., but finds the files in the runner's temp folder and
    // writes an LD_PRELOAD for the upload step, a PATH entry, outputs and a summary; it also
    // plants a file in the result folder and makes its transcript a symlink.
    const attack = [
      'for f in "$RUNNER_TEMP"/*.txt "$RUNNER_TEMP"/*.md; do echo "$f" >> found.txt; done',
      'echo "LD_PRELOAD=$RUNNER_TEMP/evil.so" >> "$RUNNER_TEMP/env.txt"',
      'echo "$RUNNER_TEMP/evil-bin" >> "$RUNNER_TEMP/path.txt"',
      'echo "status=pwned" >> "$RUNNER_TEMP/output.txt"',
      'echo "# pwned" >> "$RUNNER_TEMP/summary.md"',
      'mkdir -p "$RUNNER_TEMP/baton-result/files" && echo evil > "$RUNNER_TEMP/baton-result/files/evil.txt"',
      'ln -s "$HOME/stolen" "$RUNNER_TEMP/baton-result/transcript.txt"',
    ].join('\n');
    const task = makeTask({ base: repo.base, outputsSchema: null, backend: { uses: 'command', run: ['bash', '-c', attack], env: {} } });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) });
    const envFile = join(r.temp, 'env.txt');
    const pathFile = join(r.temp, 'path.txt');
    writeFileSync(envFile, '');
    writeFileSync(pathFile, '');
    r.env.GITHUB_ENV = envFile;
    r.env.GITHUB_PATH = pathFile;
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(0);
    // Delivered: the agent found the files and wrote them.
    expect(readFileSync(join(repo.dir, 'found.txt'), 'utf8')).toContain('env.txt');
    expect(readFileSync(envFile, 'utf8')).toBe('');
    expect(readFileSync(pathFile, 'utf8')).toBe('');
    expect(outputs(r.output)).toEqual({ status: 'succeeded', 'result-dir': join(r.temp, 'baton-result') });
    expect(readFileSync(r.output, 'utf8')).not.toContain('pwned');
    expect(readFileSync(r.summary, 'utf8')).not.toContain('pwned');
    expect(readFileSync(r.summary, 'utf8')).toContain('— succeeded');
    expect(existsSync(join(r.temp, 'baton-result/files/evil.txt'))).toBe(false);
    expect(lstatSync(join(r.temp, 'baton-result/transcript.txt')).isSymbolicLink()).toBe(false);
    expect(existsSync(join(r.temp, 'stolen'))).toBe(false);
  });

  it('hands the agent an environment without the action inputs and runner tokens', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const task = makeTask({
      base: repo.base,
      outputsSchema: null,
      backend: { uses: 'command', run: ['bash', '-c', 'env | cut -d= -f1 | sort > env-names.txt'], env: {} },
    });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) });
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(0);
    const names = readFileSync(join(repo.dir, 'env-names.txt'), 'utf8').split('\n');
    expect(names).toContain('GITHUB_WORKSPACE');
    expect(names).toContain('BATON_OUTPUT');
    expect(names.filter((n) => n.startsWith('INPUT_') || n === 'ACTIONS_RUNTIME_TOKEN')).toEqual([]);
  });

  it('succeeds as a step when the agent crashed: the artifact says what happened', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes();
    cleanup.push(f.dir);
    f.script([{ write: { 'half.txt': 'half\n' }, exit: 2 }]);
    const task = makeTask({ base: repo.base, backend: { uses: 'codex', env: {} } });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) }, f.env);
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('::warning::baton agent: crashed');
    const bundle = readResultDir(join(r.temp, 'baton-result'));
    expect(bundle.result.status).toBe('crashed');
    expect(bundle.result.changes).toEqual([{ path: 'half.txt', status: 'added', mode: '100644' }]);
    expect(outputs(r.output).status).toBe('crashed');
    expect(readFileSync(r.summary, 'utf8')).toContain('❌ baton · fix-issue · implement #1 — crashed');
  });

  it('keeps the partial work when the runner stops the job (SIGTERM on cancel or job timeout)', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes();
    cleanup.push(f.dir);
    const pidFile = join(f.dir, 'pids.json');
    f.script([{ write: { 'src/wip.ts': 'export const wip = 1;\n' }, hang: true, pidFile }]);
    const task = makeTask({ base: repo.base });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) }, f.env);
    const run = await runAction(r.env, repo.dir, (pid) => {
      const poll = setInterval(() => {
        if (!existsSync(pidFile)) return;
        clearInterval(poll);
        process.kill(pid, 'SIGTERM');
      }, 50);
    });
    expect(run.code).toBe(0);
    const bundle = readResultDir(join(r.temp, 'baton-result'));
    expect(bundle.result.status).toBe('crashed');
    expect(bundle.result.error).toContain('the job was cancelled or hit its time limit (SIGTERM)');
    expect(bundle.result.changes).toEqual([{ path: 'src/wip.ts', status: 'added', mode: '100644' }]);
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number; child: number };
    expect(alive(pids.agent)).toBe(false);
    expect(alive(pids.child)).toBe(false);
  });

  it('fails the step on missing credentials, after writing a result that says why', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const f = fakes({ ANTHROPIC_API_KEY: '' });
    cleanup.push(f.dir);
    const task = makeTask({ base: repo.base });
    const r = runner(repo.dir, { mode: 'agent', task: encodeTask(task) }, f.env);
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::baton: claude-code needs credentials: set one of ANTHROPIC_API_KEY');
    const bundle = readResultDir(join(r.temp, 'baton-result'));
    expect(bundle.result).toMatchObject({ status: 'crashed', changes: [] });
    expect(bundle.result.error).toContain('needs credentials');
    expect(f.log()).toEqual([]);
  });

  it('fails the step with a clear message for a bad task or mode', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const bad = await runAction(runner(repo.dir, { mode: 'agent', task: 'bm90IGRlZmxhdGVk' }).env, repo.dir);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('::error::baton: the `task` input does not inflate');
    const mode = await runAction(runner(repo.dir, { mode: 'deploy' }).env, repo.dir);
    expect(mode.code).toBe(1);
    expect(mode.stdout).toContain('::error::baton: unknown mode "deploy"; this version of baton has agent, validate, run, route, apply, locate');
  });
});

describe('mode locate', () => {
  it('outputs the bundled entry point and node, for the `run:` step that starts the agent', async () => {
    const repo = makeRepo();
    cleanup.push(repo.dir);
    const r = runner(repo.dir, { mode: 'locate' });
    const run = await runAction(r.env, repo.dir);
    expect(run.code).toBe(0);
    expect(outputs(r.output)).toEqual({ entry: realpathSync(ACTION), node: process.execPath });
  });
});

describe('mode validate', () => {
  function workspaceWith(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-ws-'));
    cleanup.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  it('annotates a broken manifest on its file and line, and fails the step', async () => {
    const ws = workspaceWith({
      '.agents/workflows/good.yml': 'agents:\n  coder: { uses: claude-code }\nsteps:\n  - id: plan\n    agent: coder\n    prompt: Plan.\n',
      '.agents/workflows/bad.yml': 'agents:\n  coder: { uses: claude-code }\nsteps:\n  - id: plan\n    agent: codr\n    prompt: Plan.\n  - id: impl\n    needs: [nope]\n    agent: coder\n    prompt: Go.\n',
    });
    const r = runner(ws, { mode: 'validate', path: '.agents/workflows' });
    const run = await runAction(r.env, ws);
    expect(run.code).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations.length).toBeGreaterThanOrEqual(2);
    expect(annotations.join('\n')).toMatch(/^::error title=baton validate,file=\.agents\/workflows\/bad\.yml,line=5,col=12::.*codr/m);
    expect(annotations.join('\n')).toMatch(/file=\.agents\/workflows\/bad\.yml,line=8,col=\d+::.*nope/);
    expect(run.stdout).toContain('::error::1 of 2 workflow files invalid');
    expect(outputs(r.output).valid).toBe('false');
    expect(readFileSync(r.summary, 'utf8')).toContain('| `.agents/workflows/good.yml` | ✅ valid |');
  });

  it('passes valid manifests, including one that extends the bundled library', async () => {
    const ws = workspaceWith({ '.agents/workflows/fix.yml': 'extends: fix-issue\n' });
    const r = runner(ws, { mode: 'validate', path: '.agents/workflows' });
    const run = await runAction(r.env, ws);
    expect(run.stdout).not.toContain('::error');
    expect(run.code).toBe(0);
    expect(outputs(r.output).valid).toBe('true');
  });
});
