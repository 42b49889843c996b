// Looking after local runs once they exist: `list` says what each waits for, `cancel`
// works whatever became of the workflow file, `prune` clears what finished runs left.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

const GATED = 'name: gated\ndescription: Approve, then write a file.\nsteps:\n  - id: gate\n    approve: { message: Ready to write? }\n  - id: write\n    run: echo approved > APPROVED.txt\n';

/** A repository with the `gated` workflow committed: its runs stop at an approval (exit 3). */
function gatedRepo(): Repo {
  const r = makeRepo();
  writeFile(join(r.dir, '.agents/workflows/gated.yml'), GATED);
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'gated workflow');
  return r;
}

const branches = (r: Repo): string[] => r.git('branch', '--list', 'baton/*', '--format=%(refname:short)').split('\n').filter(Boolean).sort();

describe('local runs after they started', { timeout: 90_000 }, () => {
  it('list shows a run waiting for approval as such, not as running', async () => {
    repo = gatedRepo();
    expect((await baton(repo, ['run', 'gated', '--local'])).code).toBe(3);
    const list = await baton(repo, ['list']);
    expect(list.stdout).toMatch(/^gated-1 {2}waiting for approval \(gate\) {2}\d{4}-/m);
    const json = JSON.parse((await baton(repo, ['list', '--json'])).stdout);
    expect(json.runs[0]).toMatchObject({ runId: 'gated-1', status: 'running', waiting: [{ step: 'gate', kind: 'approve' }] });
  });

  it.each([
    ['changed', (r: Repo) => writeFile(join(r.dir, '.agents/workflows/gated.yml'), GATED.replace('Ready to write?', 'Sure?'))],
    ['removed', (r: Repo) => rmSync(join(r.dir, '.agents/workflows/gated.yml'))],
  ])('cancel stops a run whose workflow file was %s since it started', async (_how, edit) => {
    repo = gatedRepo();
    expect((await baton(repo, ['run', 'gated', '--local'])).code).toBe(3);
    edit(repo);
    const cancel = await baton(repo, ['cancel', 'gated-1']);
    expect(cancel.stderr).toBe('');
    expect(cancel.stdout).toMatch(/^run gated-1 cancelled/m);
    expect(cancel.code).toBe(0);
    const status = await baton(repo, ['status', 'gated-1', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'cancelled' });
    // Going on is still refused: the run would continue against another manifest.
    const resume = await baton(repo, ['resume', 'gated-1']);
    expect(resume.code).toBe(2);
    // One prefix, the command's: not "baton resume: baton: …".
    expect(resume.stderr).toMatch(/^baton resume: (?!baton)\S/);
  });

  it('prune removes finished runs\' worktrees and branches, says so, and leaves waiting runs alone', async () => {
    repo = gatedRepo();
    expect((await baton(repo, ['run', 'local-demo', '--local'])).code).toBe(0);
    expect((await baton(repo, ['run', 'gated', '--local'])).code).toBe(3);
    expect((await baton(repo, ['run', 'gated', '--local'])).code).toBe(3);
    expect((await baton(repo, ['cancel', 'gated-2'])).code).toBe(0);
    // A worktree a killed run left behind.
    repo.git('worktree', 'add', '--detach', join(repo.dir, '.baton/worktrees/gated-2/write-a1'), 'HEAD');
    expect(branches(repo)).toEqual(['baton/gated-1', 'baton/gated-2', 'baton/local-demo-1', 'baton/steps/local-demo-1/note', 'baton/steps/local-demo-1/scaffold']);

    const dry = await baton(repo, ['prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would remove');
    expect(dry.stdout).toContain('baton/steps/local-demo-1/note');
    expect(branches(repo)).toHaveLength(5);

    const r = await baton(repo, ['prune']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/gated-2 \(cancelled\): removed .*branch baton\/gated-2/);
    expect(r.stdout).toMatch(/worktree \.baton\/worktrees\/gated-2\/write-a1/);
    expect(r.stdout).toMatch(/local-demo-1 \(succeeded\): removed branch baton\/steps\/local-demo-1\/note/);
    // A succeeded run's branch is its result: kept while it is neither pushed nor merged.
    expect(r.stdout).toMatch(/kept branch baton\/local-demo-1/);
    expect(r.stdout).toMatch(/skipped gated-1: waiting for approval/);
    expect(branches(repo)).toEqual(['baton/gated-1', 'baton/local-demo-1']);
    expect(repo.git('worktree', 'list')).not.toContain('.baton/worktrees');
    expect(repo.git('status', '--porcelain')).toBe('');

    // Once merged, the result branch goes too; a second prune finds nothing else.
    repo.git('merge', '-q', '--ff-only', 'baton/local-demo-1');
    expect((await baton(repo, ['prune'])).stdout).toMatch(/local-demo-1 \(succeeded\): removed branch baton\/local-demo-1/);
    expect(branches(repo)).toEqual(['baton/gated-1']);
    expect((await baton(repo, ['prune'])).stdout).toMatch(/^nothing to prune/m);
  });
});

describe('the pull request of a local run', { timeout: 90_000 }, () => {
  const PR_WORKFLOW =
    'name: shipit\ndescription: Write a file and open a PR for the issue.\nsteps:\n  - id: write\n    run: echo fixed > FIXED.txt\n  - id: pr\n    pull-request:\n      title: "Fix #${{ issue.number }}: ${{ issue.title }}"\n      body: |\n        Fixes #${{ issue.number }}.\n\n        Wrote FIXED.txt for issue #${{ issue.number }}.\n';

  it('has no #0 in its text (a local run has no issue number), and its printed command pushes the branch, then opens the PR', async () => {
    repo = makeRepo();
    writeFile(join(repo.dir, '.agents/workflows/shipit.yml'), PR_WORKFLOW);
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'shipit workflow');
    // A remote to push to, and a `gh` that records what it was asked.
    const remote = `${repo.dir}-remote.git`;
    const bin = `${repo.dir}-bin`;
    repo.git('init', '-q', '--bare', remote);
    repo.git('remote', 'add', 'origin', remote);
    writeFile(join(bin, 'gh'), '#!/bin/sh\nprintf "%s\\n" "$@" > "$GH_LOG"\ncat "$(printf "%s\\n" "$@" | sed -n "/^--body-file$/{n;p;}")" >> "$GH_LOG"\n');
    chmodSync(join(bin, 'gh'), 0o755);
    try {
      const r = await baton(repo, ['run', 'shipit', '--local', '--input', 'issue=Crash on start']);
      expect(r.code).toBe(0);
      const body = repo.file('.baton/runs/shipit-1/pull-request.md');
      expect(body).not.toContain('#0');
      expect(body).toMatch(/^Wrote FIXED\.txt for the issue\.$/m);
      const command = /Open the pull request with:\n {2}(.*)\n/.exec(r.stdout)![1]!;
      expect(command).not.toContain('#0');
      // Nor does the record: the local "PR" is the run branch.
      expect(repo.file('.baton/runs/shipit-1/record.md')).not.toContain('#0');
      expect(repo.file('.baton/runs/shipit-1/record.md')).toMatch(/\| pr \| branch baton\/shipit-1 \|/);
      expect((await baton(repo, ['status', 'shipit-1'])).stdout).not.toContain('#0');
      expect(command).toMatch(/^git push -u origin baton\/shipit-1 && gh pr create --head baton\/shipit-1 --base main --title 'Fix: Crash on start' --body-file /);

      // The line works as printed: the branch reaches the remote before gh is asked for the PR.
      const log = join(bin, 'gh.log');
      execFileSync('sh', ['-c', command], { cwd: repo.dir, env: { ...repo.env, PATH: `${bin}:${repo.env.PATH}`, GH_LOG: log } });
      expect(execFileSync('git', ['rev-parse', 'refs/heads/baton/shipit-1'], { cwd: remote, encoding: 'utf8' }).trim()).toBe(repo.git('rev-parse', 'baton/shipit-1'));
      const asked = readFileSync(log, 'utf8');
      expect(asked).toContain('pr\ncreate\n--head\nbaton/shipit-1\n');
      expect(asked).toContain('Wrote FIXED.txt for the issue.');
    } finally {
      rmSync(remote, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
