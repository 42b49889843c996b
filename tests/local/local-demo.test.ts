// Local runs of the bundled local-demo workflow on a temporary repository.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, makeRepo, ROOT, spawnBaton, waitFor, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

describe('baton run local-demo --local', { timeout: 90_000 }, () => {
  it('runs in a fresh repository holding nothing of baton: every step on branches and worktrees, leaving the checkout alone', async () => {
    repo = makeRepo();
    // A stranger's repository outside baton's checkout: one README, no workflows, no scripts.
    expect(repo.dir.startsWith(ROOT)).toBe(false);
    expect(repo.git('ls-files')).toBe('README.md');
    const r = await baton(repo, ['run', 'local-demo', '--local', '--input', 'note=Hi there']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/started on branch baton\/local-demo-1/);
    expect(r.stdout).toMatch(/✓ scaffold {2}succeeded/);
    expect(r.stdout).toMatch(/✓ pr {2}succeeded/);
    expect(r.stdout).toMatch(/git push -u origin baton\/local-demo-1 && gh pr create --head baton\/local-demo-1 --base main --title 'local-demo: Hi there' --body-file \S+pull-request\.md --draft/);

    // The user's branch and working tree are untouched; the result lives on the run branch.
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(repo.git('status', '--porcelain')).toBe('');
    const notes = repo.git('show', 'baton/local-demo-1:NOTES.md');
    expect(notes).toContain('# Notes');
    expect(notes).toContain('- Hi there');
    // The step branch, whichever of the engine's names (git refuses `baton/<run>/<step>` next to `baton/<run>`).
    expect(repo.git('branch', '--list', 'baton/*')).toMatch(/^\s*baton\/steps\/local-demo-1\/note$/m);
    expect(repo.git('worktree', 'list')).not.toContain('.baton/worktrees');

    const evs = events(repo, 'local-demo-1');
    expect(evs[0]!.type).toBe('run.requested');
    expect(evs.filter((e) => e.type === 'worker.finished').map((e) => e.step)).toEqual(['scaffold', 'note']);
    const record = repo.file('.baton/runs/local-demo-1/record.md');
    expect(record).toContain('succeeded');
    expect(JSON.parse(repo.file('.baton/runs/local-demo-1/state.json')).status).toBe('succeeded');

    const status = await baton(repo, ['status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ runId: 'local-demo-1', status: 'succeeded', steps: [{ id: 'scaffold' }, { id: 'note' }, { id: 'verify' }, { id: 'pr' }] });
    const list = await baton(repo, ['list']);
    expect(list.stdout).toMatch(/^local-demo-1 {2}succeeded/m);
  });

  it('runs on a machine with no git identity (a fresh clone, a CI runner): baton authors its own commits', async () => {
    repo = makeRepo();
    // The user's history has an author; this machine names nobody: no GIT_AUTHOR_*/EMAIL, and
    // no user.* in any config (makeRepo and tests/setup/git-config.ts give it none).
    for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL']) delete repo.env[name];
    expect(repo.git('config', '--list')).not.toMatch(/^user\./m);
    const r = await baton(repo, ['run', 'local-demo', '--local']);
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    const people = repo.git('log', '--format=%an <%ae> / %cn <%ce>', 'main..baton/local-demo-1').split('\n');
    expect(people.length).toBeGreaterThan(0);
    expect(new Set(people)).toEqual(new Set(['baton <baton@localhost> / baton <baton@localhost>']));
  });

  it('a failing check sends the step into a fix round, then passes', async () => {
    repo = makeRepo({}, { demoHooks: true });
    const log = join(repo.dir, '..', `${repo.dir.split('/').pop()}-demo.log`);
    const r = await baton(repo, ['run', 'local-demo', '--local'], { DEMO_LOG: log, DEMO_FORGET: '1' });
    expect(r.code).toBe(0);
    const evs = events(repo, 'local-demo-1');
    const checks = evs.filter((e) => e.type === 'checks.reported');
    expect(checks).toHaveLength(2);
    const first = Object.fromEntries(checks[0]!.checks!.map((c) => [c.name, c.conclusion]));
    expect(first).toEqual({ 'notes-exist': 'success', 'notes-have-a-note': 'failure' });
    expect(checks[0]!.checks!.find((c) => c.name === 'notes-have-a-note')!.summary).toContain("grep -q '^- ' NOTES.md");
    expect(checks[1]!.checks!.every((c) => c.conclusion === 'success')).toBe(true);
    // The fix round is a second job of the gate, and the agent ran twice in all.
    expect(evs.filter((e) => e.type === 'worker.finished').map((e) => `${e.step}/${e.slot}`)).toEqual(['scaffold/0', 'note/0', 'verify/fix-1']);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(repo.git('show', 'baton/local-demo-1:NOTES.md')).toMatch(/^- Hello from baton$/m);
  });

  it('never silently green: an agent that says it is done and changed nothing fails the run, and the record names what is missing', async () => {
    repo = makeRepo({}, { demoHooks: true });
    const r = await baton(repo, ['run', 'local-demo', '--local'], { DEMO_NOTHING: '1' });
    expect(r.code).not.toBe(0);
    const evs = events(repo, 'local-demo-1');
    // The agent's result came in (exit 0, valid outputs) but no commit: no merge, no pull request.
    expect(evs.filter((e) => e.type === 'worker.finished').map((e) => e.step)).toEqual(['scaffold', 'note']);
    expect(evs.filter((e) => e.type === 'pull-request.ensured')).toEqual([]);
    const record = readFileSync(join(repo.dir, '.baton', 'runs', 'local-demo-1', 'record.md'), 'utf8');
    expect(record).toContain('without changing any file');
    expect(record).toContain('no-changes: succeed');
  });

  it('a run killed mid-step resumes without repeating finished steps', async () => {
    repo = makeRepo({}, { demoHooks: true });
    const log = join(repo.dir, '.git', 'demo.log');
    const hold = join(repo.dir, '.git', 'demo.hold');
    writeFile(hold, '');
    const child = spawnBaton(repo, ['run', 'local-demo', '--local'], { DEMO_LOG: log, DEMO_HOLD: hold });
    await waitFor('the note agent to start', () => {
      try {
        return readFileSync(log, 'utf8').includes('start 1 note 1');
      } catch {
        return false;
      }
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    const before = events(repo, 'local-demo-1');
    expect(before.filter((e) => e.type === 'worker.finished').map((e) => e.step)).toEqual(['scaffold']);

    rmSync(hold);
    const r = await baton(repo, ['resume', 'local-demo-1'], { DEMO_LOG: log });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const evs = events(repo, 'local-demo-1');
    // scaffold ran once; the note attempt whose result was never recorded ran again as attempt 1.
    expect(evs.filter((e) => e.type === 'worker.finished').map((e) => `${e.step}#${e.attempt}`)).toEqual(['scaffold#1', 'note#1']);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['start 1 note 1', 'start 2 note 1']);
    expect(evs.filter((e) => e.type === 'run.requested')).toHaveLength(1);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('show', 'baton/local-demo-1:NOTES.md').match(/^- /gm)).toHaveLength(1);
  });
});
