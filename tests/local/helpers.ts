// Temporary git repositories and the `baton` CLI as a person runs it (a subprocess of
// bin/baton.js), with fake agent CLIs first on PATH and git identity from the environment.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin/baton.js');
export const FAKE_AGENTS = join(ROOT, 'tests/fixtures/fake-agents');

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Person',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test Person',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/**
 * Stands in for the library's demo agent: logs each call, waits while a hold file exists
 * (so a test can kill baton mid-step), and on its first call with DEMO_FORGET set writes its
 * note to the wrong file (so a check fails); with DEMO_NOTHING set, every call reports a note
 * and writes nothing (an agent that says it is done and did nothing). Otherwise it runs the
 * library's own agent.
 */
const DEMO_WRAPPER = `#!/bin/sh
set -eu
here=$(dirname "$0")
n=1
if [ -n "\${DEMO_LOG:-}" ]; then
  n=$(( $(cat "$DEMO_LOG" 2>/dev/null | wc -l) + 1 ))
  echo "start $n $BATON_STEP $BATON_ATTEMPT" >> "$DEMO_LOG"
fi
while [ -n "\${DEMO_HOLD:-}" ] && [ -f "$DEMO_HOLD" ]; do sleep 0.1; done
if [ -n "\${DEMO_FORGET:-}" ] && [ "$n" = 1 ]; then
  cat > /dev/null
  printf -- '- a note in the wrong file\\n' > NOTE.md
  printf '{"file":"NOTES.md","notes":1,"summary":"forgot the note"}' > "$BATON_OUTPUT"
  exit 0
fi
if [ -n "\${DEMO_NOTHING:-}" ]; then
  cat > /dev/null
  printf '{"file":"NOTES.md","notes":1,"summary":"added the note"}' > "$BATON_OUTPUT"
  exit 0
fi
exec sh "$here/demo-agent-real.sh"
`;

/** The library's local-demo agent: the shell script its `run: [sh, -c, <script>]` carries. */
export function demoAgentScript(): string {
  const doc = parse(readFileSync(join(ROOT, 'workflows-library/local-demo.yml'), 'utf8')) as { agents: { demo: { run: string[] } } };
  const [program, flag, script] = doc.agents.demo.run;
  if (program !== 'sh' || flag !== '-c' || !script) throw new Error('local-demo.yml: expected the demo agent as `run: [sh, -c, <script>]`');
  return script;
}

export interface RepoOptions {
  /**
   * Adds `.agents/workflows/local-demo.yml` extending the library's local-demo with its
   * agent wrapped by DEMO_WRAPPER (kept outside the repository), for the DEMO_* hooks.
   */
  demoHooks?: boolean;
}

export interface Repo {
  dir: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  file(rel: string): string;
  cleanup(): void;
}

export function makeRepo(extraEnv: Record<string, string> = {}, opts: RepoOptions = {}): Repo {
  const dir = mkdtempSync(join(tmpdir(), 'baton-local-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...GIT_ENV,
    PATH: `${FAKE_AGENTS}:${process.env.PATH}`,
    ANTHROPIC_API_KEY: 'test-key',
    OPENAI_API_KEY: 'test-key',
    CODEX_API_KEY: 'test-key',
    ...extraEnv,
  };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# test repository\n');
  const hooks = `${dir}-hooks`;
  if (opts.demoHooks) {
    mkdirSync(hooks);
    writeFileSync(join(hooks, 'demo-agent-real.sh'), demoAgentScript());
    writeFileSync(join(hooks, 'demo-agent.sh'), DEMO_WRAPPER);
    chmodSync(join(hooks, 'demo-agent.sh'), 0o755);
    mkdirSync(join(dir, '.agents/workflows'), { recursive: true });
    writeFileSync(
      join(dir, '.agents/workflows/local-demo.yml'),
      `extends: local-demo\nagents:\n  demo: { uses: command, run: [sh, ${JSON.stringify(join(hooks, 'demo-agent.sh'))}], timeout-minutes: 1 }\n`,
    );
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return {
    dir,
    env,
    git,
    file: (rel) => readFileSync(join(dir, rel), 'utf8'),
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(hooks, { recursive: true, force: true });
    },
  };
}

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function baton(repo: Repo, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawnBaton(repo, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function spawnBaton(repo: Repo, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: repo.dir, env: { ...repo.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface LoggedEvent {
  type: string;
  step?: string;
  slot?: string;
  attempt?: number;
  checks?: { name: string; conclusion: string | null; summary?: string }[];
  [k: string]: unknown;
}

export function events(repo: Repo, runId: string): LoggedEvent[] {
  const text = readFileSync(join(repo.dir, '.baton/runs', runId, 'events.jsonl'), 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LoggedEvent);
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export const exists = existsSync;
