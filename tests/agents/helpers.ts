// Test scaffolding for workers: a real git repository, a task, and the fake agent CLIs
// of tests/fixtures/fake-agents on PATH, steered by a script of behaviours.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DispatchWorker } from '../../src/engine/commands.ts';
import type { AgentSpec, Backend } from '../../src/manifest/types.ts';

export const FAKE_AGENTS = fileURLToPath(new URL('../fixtures/fake-agents/', import.meta.url));

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A repository with one commit: README.md, src/a.ts, run.sh (executable), .gitignore. */
export function makeRepo(root = mkdtempSync(join(tmpdir(), 'baton-repo-'))): { dir: string; base: string } {
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'README.md'), '# demo\n');
  writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n*.log\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'test');
  git(root, 'config', 'user.email', 'test@localhost');
  git(root, 'config', 'commit.gpgsign', 'false');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'base');
  return { dir: root, base: git(root, 'rev-parse', 'HEAD') };
}

export function makeTask(over: Partial<DispatchWorker> & { backend?: AgentSpec | null } = {}): DispatchWorker {
  return {
    type: 'dispatch-worker',
    runId: 'fix-issue-42-1',
    key: 'fix-issue-42-1/implement/0/1',
    workflow: 'fix-issue',
    step: 'implement',
    slot: '0',
    index: null,
    item: null,
    attempt: 1,
    kind: 'agent',
    runName: 'baton fix-issue-42-1 implement #1',
    agent: 'coder',
    backend: { uses: 'claude-code', env: {} },
    prompt: 'Fix the bug in src/a.ts.',
    command: null,
    outputsSchema: {
      type: 'object',
      required: ['summary'],
      properties: { summary: { type: 'string' } },
      additionalProperties: false,
    },
    base: 'HEAD',
    resume: false,
    branch: 'baton/fix-issue-42-1/implement',
    writes: true,
    env: {},
    timeoutMinutes: null,
    previousError: null,
    feedback: null,
    ...over,
  };
}

export interface Fakes {
  /** Private folder of this set of fakes (HOME is inside it). */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Sets the per-invocation behaviours (see tests/fixtures/fake-agents/README.md). */
  script(steps: unknown[]): void;
  /** What each fake invocation saw: argv, prompt, BATON_OUTPUT. */
  log(): { name: string; argv: string[]; prompt: string; batonOutput: string | null; invocation: number; mcpServers?: Record<string, unknown>; mcpFiles?: string[]; mcpFileModes?: string[]; projectConfig?: Record<string, string> }[];
}

/** PATH with the fakes first, every credential set, and a private HOME. */
export function fakes(extraEnv: NodeJS.ProcessEnv = {}): Fakes {
  const dir = mkdtempSync(join(tmpdir(), 'baton-fakes-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  const scriptFile = join(dir, 'script.json');
  const logFile = join(dir, 'log.jsonl');
  const env: NodeJS.ProcessEnv = {
    PATH: `${FAKE_AGENTS}${delimiter}${process.env.PATH}`,
    HOME: home,
    ANTHROPIC_API_KEY: 'test-anthropic',
    OPENAI_API_KEY: 'test-openai',
    CODEX_API_KEY: 'test-codex',
    GEMINI_API_KEY: 'test-gemini',
    COPILOT_GITHUB_TOKEN: 'test-copilot',
    FAKE_AGENT_SCRIPT: scriptFile,
    FAKE_AGENT_LOG: logFile,
    ...extraEnv,
  };
  writeFileSync(scriptFile, '[]');
  return {
    dir,
    env,
    script(steps) {
      writeFileSync(scriptFile, JSON.stringify(steps));
      writeFileSync(`${scriptFile}.count`, '0');
    },
    log() {
      if (!existsSync(logFile)) return [];
      return readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
  };
}

/** True while the process runs; a zombie (dead, not yet reaped by its new parent) is dead. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** A fresh repository, the fake CLIs (with `env` added) and a task for `uses`; both folders go on `cleanup`. */
export function backendScenario(uses: Backend, env: NodeJS.ProcessEnv, cleanup: string[]) {
  const repo = makeRepo();
  const f = fakes(env);
  cleanup.push(repo.dir, f.dir);
  return { repo, f, task: makeTask({ base: repo.base, backend: { uses, env: {} } }) };
}
