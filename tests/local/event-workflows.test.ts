// The library's event and schedule workflows run locally too, started by `baton run`: the CI
// doctor reads the issue baton would open on GitHub, so locally `issue=<text>` stands in for
// it, and without it the run says at its start that those fields are empty; the weekly upkeep
// reads nothing of its tracking issue but the number, which a local run leaves out.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

function repoWithTests(): Repo {
  const r = makeRepo();
  // The library's check steps run `npm test` locally.
  writeFile(join(r.dir, 'package.json'), JSON.stringify({ name: 'x', private: true, scripts: { test: 'node -e 0' } }));
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'package');
  return r;
}

function scriptAgent(r: Repo, entries: unknown[]): Record<string, string> {
  const script = join(r.dir, '.git', 'claude-script.json');
  writeFileSync(script, JSON.stringify(entries));
  return { FAKE_AGENT_SCRIPT: script, FAKE_AGENT_LOG: join(r.dir, '.git', 'claude.log') };
}

const prompts = (r: Repo): string[] => r.file('.git/claude.log').trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt);

const FIX = { write: { 'src/fix.js': 'export const fixed = true;\n' }, output: { cause: 'A typo in the build script.', summary: 'Fixes the typo.' } };

describe('event and schedule workflows run locally', { timeout: 120_000 }, () => {
  it('ci-doctor takes the failure from issue=… and ends in the pull request line', async () => {
    repo = repoWithTests();
    const env = scriptAgent(repo, [FIX]);
    const r = await baton(repo, ['run', 'ci-doctor', '--local', '--input', 'issue=CI failed on main\nbuild: npm ERR! missing script'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('note:');
    const [prompt] = prompts(repo);
    expect(prompt).toContain('CI failed on main');
    expect(prompt).toContain('npm ERR! missing script');
    // No issue on GitHub to close: the body says no `Fixes #0`.
    expect(r.stdout).toContain('gh pr create');
    expect(repo.file('.baton/runs/ci-doctor-1/pull-request.md')).not.toMatch(/#0|Fixes #/);
    expect(events(repo, 'ci-doctor-1').find((e) => e.type === 'run.requested')).toMatchObject({ thread: null, issue: { number: 0, title: 'CI failed on main' } });
  });

  it('ci-doctor without issue=… says which fields are empty and how to give them', async () => {
    repo = repoWithTests();
    const env = scriptAgent(repo, [FIX]);
    const r = await baton(repo, ['run', 'ci-doctor', '--local'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('note: `ci-doctor` reads issue.body, issue.title; a local run has no issue, so they are empty. Give the text with --input issue="<text>"');
  });

  it('weekly-upkeep runs on demand, and skips its pull request when nothing changed', async () => {
    repo = repoWithTests();
    const env = scriptAgent(repo, [{ output: { summary: 'Nothing drifted.', changed: false } }]);
    const r = await baton(repo, ['run', 'weekly-upkeep', '--local'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('note:');
    const state = JSON.parse(repo.file('.baton/runs/weekly-upkeep-1/state.json'));
    expect(state.steps.map((s: { id: string; status: string }) => `${s.id}:${s.status}`)).toEqual(['tidy:succeeded', 'ci:skipped', 'pr:skipped']);
  });

  it('review-pr without pr=… says so', async () => {
    repo = repoWithTests();
    const env = scriptAgent(repo, [{ output: { approved: true, summary: 'Nothing to review.', comments: [] } }]);
    const r = await baton(repo, ['run', 'review-pr', '--local'], env);
    expect(r.stdout).toContain('note: `review-pr` reads pr.body, pr.title; this run is bound to no pull request, so they are empty. Name a local branch with --input pr=<branch>.');
  });
});
