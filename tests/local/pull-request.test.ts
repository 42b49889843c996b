// `baton run review-pr --local --input pr=<branch>`: a local branch stands in for a pull
// request. The run starts from the branch's head, the reviewer reads the branch's changes
// against its base, and the review (inline comments, a suggestion as a diff) is printed and
// kept in the run's record.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, exists, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

/** main has src/count.js; `feature` changes its second line in one commit with a body. */
function repoWithFeature(): Repo {
  const r = makeRepo();
  writeFile(join(r.dir, 'src/count.js'), 'let n = 0;\nn = n + 1;\nexport { n };\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'count');
  r.git('checkout', '-q', '-b', 'feature');
  writeFile(join(r.dir, 'src/count.js'), 'let n = 0;\nn = n + 2;\nexport { n };\n');
  r.git('commit', '-q', '-am', 'Count by two\n\nThe counter now steps by two.');
  r.git('checkout', '-q', 'main');
  return r;
}

function scriptAgent(r: Repo, entries: unknown[]): Record<string, string> {
  const script = join(r.dir, '.git', 'claude-script.json');
  writeFileSync(script, JSON.stringify(entries));
  return { FAKE_AGENT_SCRIPT: script, FAKE_AGENT_LOG: join(r.dir, '.git', 'claude.log') };
}

function prompts(r: Repo): string[] {
  return r.file('.git/claude.log').trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt);
}

describe('a local branch as the pull request', { timeout: 90_000 }, () => {
  it('reviews the branch from its head and prints the inline comments and the suggestion as a diff', async () => {
    repo = repoWithFeature();
    const env = scriptAgent(repo, [
      {
        output: {
          approved: false,
          summary: 'Looked at src/count.js. The step changed.',
          comments: [{ path: 'src/count.js', line: 2, body: 'Should this stay one?', suggestion: 'n = n + 1;' }, { path: 'src/count.js', line: 3, body: 'Fine.' }],
        },
      },
    ]);
    const r = await baton(repo, ['run', 'review-pr', '--local', '--input', 'pr=feature'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('run review-pr-1 started for branch feature into main');
    // The review as GitHub would show it: where, what, and the suggested change against the lines it replaces.
    expect(r.stdout).toContain('review of branch feature (into main)');
    expect(r.stdout).toContain('Looked at src/count.js. The step changed.');
    expect(r.stdout).toMatch(/^src\/count\.js:2\n {2}Should this stay one\?\n {2}suggested change:\n {4}--- a\/src\/count\.js\n {4}\+\+\+ b\/src\/count\.js\n {4}@@ -2,1 \+2,1 @@\n {4}-n = n \+ 2;\n {4}\+n = n \+ 1;$/m);
    expect(r.stdout).toMatch(/^src\/count\.js:3\n {2}Fine\.$/m);

    const evs = events(repo, 'review-pr-1');
    const head = repo.git('rev-parse', 'feature');
    const requested = evs.find((e) => e.type === 'run.requested')!;
    expect(requested).toMatchObject({ thread: { kind: 'pull', number: 0 }, baseBranch: 'feature', baseSha: head });
    expect(requested.pr).toEqual({ number: 0, title: 'Count by two', body: 'Count by two\n\nThe counter now steps by two.', url: '', head: 'feature', base: 'main' });
    // The run branch starts at the pull request's head; the person's checkout stays on main.
    expect(repo.git('rev-parse', 'baton/review-pr-1')).toBe(head);
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main');

    // The reviewer read the branch's changes (from the merge base with main), not an empty diff.
    const [prompt] = prompts(repo);
    expect(prompt).toContain('-n = n + 1;\n+n = n + 2;');
    expect(prompt).toContain('Count by two');

    // Recorded: the review's file is the posted review's link, with what the terminal showed.
    const posted = evs.find((e) => e.type === 'review.posted')!;
    expect(posted).toMatchObject({ step: 'review', event: 'COMMENT', url: '.baton/runs/review-pr-1/reviews/review-a1.md' });
    expect(repo.file('.baton/runs/review-pr-1/reviews/review-a1.md')).toContain('@@ -2,1 +2,1 @@');
    const state = JSON.parse(repo.file('.baton/runs/review-pr-1/state.json'));
    expect(state.status).toBe('succeeded');
  });

  it('titles a branch of several commits by its name and takes --base', async () => {
    repo = repoWithFeature();
    repo.git('checkout', '-q', '-b', 'stack', 'feature');
    writeFile(join(repo.dir, 'NOTES.md'), 'notes\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'Add notes');
    writeFile(join(repo.dir, 'NOTES.md'), 'notes, more\n');
    repo.git('commit', '-q', '-am', 'More notes');
    repo.git('checkout', '-q', 'main');
    const env = scriptAgent(repo, [{ output: { approved: true, summary: 'Read NOTES.md: nothing to change.', comments: [] } }]);
    const r = await baton(repo, ['run', 'review-pr', '--local', '--input', 'pr=stack', '--base', 'feature'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No inline comments.');
    const requested = events(repo, 'review-pr-1').find((e) => e.type === 'run.requested')!;
    expect(requested.pr).toMatchObject({ title: 'stack', body: 'Add notes\n\nMore notes', base: 'feature', head: 'stack' });
    // Against --base, only the stacked commits are the pull request's changes.
    const [prompt] = prompts(repo);
    expect(prompt).toContain('+notes, more');
    expect(prompt).not.toContain('n = n + 2');
  });

  it('refuses a branch it cannot review with a message that names it, and starts nothing', async () => {
    repo = repoWithFeature();
    const run = (...args: string[]) => baton(repo, ['run', 'review-pr', '--local', ...args]);
    const unknown = await run('--input', 'pr=no-such-branch');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no local branch "no-such-branch"');
    const base = await run('--input', 'pr=feature', '--base', 'trunk');
    expect(base.code).toBe(2);
    expect(base.stderr).toContain('no branch "trunk" to merge "feature" into');
    const itself = await run('--input', 'pr=main');
    expect(itself.code).toBe(2);
    expect(itself.stderr).toContain('"main" is the base branch itself');
    const empty = await run('--input', 'pr=feature', '--base', 'feature');
    expect(empty.code).toBe(2);
    const merged = await run('--input', `pr=main`, '--base', 'feature');
    expect(merged.stderr).toContain('"main" has no commits that "feature" lacks');
    const baseAlone = await run('--base', 'main');
    expect(baseAlone.code).toBe(2);
    expect(baseAlone.stderr).toContain('--input pr=<branch>');
    const both = await run('--input', 'pr=feature', '--input', 'issue=x');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    expect(exists(join(repo.dir, '.baton/runs'))).toBe(false);
  });
});
