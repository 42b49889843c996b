// A newcomer's first local run of a library workflow, as the README suggests it: a missing
// agent CLI or key is said before anything is asked or started, in words for their own
// machine (not a GitHub worker job's), and a run with no issue asks no "#0" question.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKEND_IMPLS } from '../../src/agents/backends/index.ts';
import { installCommand } from '../../src/agents/backends/types.ts';
import { baton, FAKE_AGENTS, makeRepo, type Repo } from './helpers.ts';

let repo: Repo;
let home: string;
afterEach(() => {
  repo?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** This machine's PATH without the fake agent CLIs nor any real claude or codex. */
function pathWithoutAgents(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && dir !== FAKE_AGENTS && !['claude', 'codex'].some((b) => existsSync(join(dir, b))))
    .join(delimiter);
}

/** A HOME with no stored CLI login in it. */
function emptyHome(): string {
  home = mkdtempSync(join(tmpdir(), 'baton-home-'));
  return home;
}

const startsNothing = (r: Repo): void => {
  expect(r.git('branch', '--list', 'baton/*')).toBe('');
  expect(existsSync(join(r.dir, '.baton/runs'))).toBe(false);
};

describe('a first local run of fix-issue', { timeout: 60_000 }, () => {
  it('without the agent CLIs: says which to install and how, before asking anything, and starts nothing', async () => {
    repo = makeRepo({ PATH: pathWithoutAgents(), HOME: emptyHome() });
    const r = await baton(repo, ['run', 'fix-issue', '--local', '--input', 'issue=Login fails']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^baton run: fix-issue cannot run here, so nothing was started:\n/);
    expect(r.stderr).toContain(`agent \`coder\`: \`claude\` (claude-code) is not on PATH: install it with \`${installCommand(BACKEND_IMPLS['claude-code'])}\``);
    expect(r.stderr).toContain(`agent \`reviewer\`: \`codex\` (codex) is not on PATH: install it with \`${installCommand(BACKEND_IMPLS.codex)}\``);
    // Words for this machine: no worker job, no repository secret.
    expect(r.stderr).not.toMatch(/worker job|repository secret|Actions/);
    startsNothing(repo);
  });

  it('without keys: names the variables to set in your environment, or the CLI login', async () => {
    repo = makeRepo({ ANTHROPIC_API_KEY: '', CODEX_API_KEY: '', OPENAI_API_KEY: 'sk-set-for-the-wrong-name', HOME: emptyHome() });
    const r = await baton(repo, ['run', 'fix-issue', '--local', '--input', 'issue=Login fails']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agent `coder`: claude-code needs credentials: set one of ANTHROPIC_API_KEY, ');
    expect(r.stderr).toContain('in your environment, or sign in with `claude` itself');
    // codex does not read OPENAI_API_KEY: said, with the name it does read.
    expect(r.stderr).toContain('agent `reviewer`: codex needs credentials: set CODEX_API_KEY in your environment');
    expect(r.stderr).toContain('OPENAI_API_KEY is set, but `codex exec` does not read OPENAI_API_KEY: set CODEX_API_KEY to the same key');
    expect(r.stderr).not.toMatch(/worker's environment|repository secret/);
    startsNothing(repo);
  });

  it('with its agents ready: asks its questions, with no issue number in them', async () => {
    repo = makeRepo();
    const r = await baton(repo, ['run', 'fix-issue', '--local', '--input', 'issue=Login fails']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('Step `clarify` asks:\n  1. Which part of the code should the fix for the issue touch?\n');
    expect(r.stdout).not.toMatch(/#0|#(?![\w-])/);
  });
});
