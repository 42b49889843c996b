// `baton_start_run` with `pr`: on GitHub the `/baton <workflow>` command goes on the pull
// request (a number that is an issue is refused); locally a branch stands in for the pull
// request, as `baton run --input pr=<branch>` does.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';
import { makeRepo, ROOT, writeFile, type Repo } from '../local/helpers.ts';
import { connect, text, type Connected } from './client.ts';

const o = { owner: 'acme', repo: 'widgets' };
let emu: Emulator;
let repo: Repo;
let mcp: Connected;
let alice: Octokit;

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(o.owner, o.repo, { 'README.md': '# widgets\n', '.agents/workflows/review-pr.yml': readFileSync(`${ROOT}/workflows-library/review-pr.yml`, 'utf8') });
  emu.store.setRole(o.owner, o.repo, 'alice', 'write');
  const token = emu.auth.userToken('alice');
  alice = new Octokit({ baseUrl: emu.apiUrl, auth: token });

  repo = makeRepo();
  writeFile(join(repo.dir, 'src/count.js'), 'let n = 0;\nn = n + 1;\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'count');
  repo.git('checkout', '-q', '-b', 'feature');
  writeFile(join(repo.dir, 'src/count.js'), 'let n = 0;\nn = n + 2;\n');
  repo.git('commit', '-q', '-am', 'Count by two');
  repo.git('checkout', '-q', 'main');
  const script = join(repo.dir, '.git', 'claude-script.json');
  writeFileSync(script, JSON.stringify([{ output: { approved: false, summary: 'Read src/count.js.', comments: [{ path: 'src/count.js', line: 2, body: 'By one?', suggestion: 'n = n + 1;' }] } }]));
  mcp = await connect(repo.dir, { ...repo.env, FAKE_AGENT_SCRIPT: script, GITHUB_TOKEN: token, GITHUB_API_URL: emu.apiUrl });
});
afterAll(async () => {
  await mcp?.close();
  await emu?.close();
  repo?.cleanup();
});

describe('baton_start_run bound to a pull request', { timeout: 90_000 }, () => {
  it('locally: reviews a branch as the pull request and records the review', async () => {
    const started = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'review-pr', pr: 'feature' });
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { run: { runId: string } }).run.runId;
    expect(runId).toBe('review-pr-1');
    let status = '';
    for (let i = 0; i < 40 && status !== 'succeeded' && status !== 'failed'; i++) {
      const r = await mcp.call('baton_wait', { path: repo.dir, runId, timeoutSeconds: 10 });
      status = (r.structuredContent as { run: { status: string } }).run.status;
    }
    expect(status).toBe('succeeded');
    expect(repo.git('rev-parse', 'baton/review-pr-1')).toBe(repo.git('rev-parse', 'feature'));
    const review = readFileSync(join(repo.dir, '.baton/runs/review-pr-1/reviews/review-a1.md'), 'utf8');
    expect(review).toContain('src/count.js:2');
    expect(review).toContain('-n = n + 2;\n    +n = n + 1;');
  });

  it('locally: refuses an unknown branch, a number, and a base without a pull request, by name', async () => {
    const unknown = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'review-pr', pr: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('no local branch "nope"');
    const number = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'review-pr', pr: 3 });
    expect(number.isError).toBe(true);
    expect(text(number)).toContain('locally `pr` names a branch');
    const base = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'review-pr', base: 'main' });
    expect(base.isError).toBe(true);
    expect(text(base)).toContain('--input pr=<branch>');
    expect(existsSync(join(repo.dir, '.baton/runs/review-pr-2'))).toBe(false);
  });

  it('on GitHub: posts the command on the pull request, and refuses an issue given as `pr`', async () => {
    const main = (await alice.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...o, ref: 'refs/heads/feature', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...o, path: 'src/app.txt', branch: 'feature', message: 'Add app', content: Buffer.from('one\n').toString('base64') });
    const pull = (await alice.pulls.create({ ...o, title: 'Add the app', head: 'feature', base: 'main' })).data.number;
    const issue = (await alice.issues.create({ ...o, title: 'Not a pull request' })).data.number;
    const target = { repository: `${o.owner}/${o.repo}` };

    const started = await mcp.call('baton_start_run', { ...target, workflow: 'review-pr', pr: pull });
    expect(started.isError, text(started)).toBeFalsy();
    const onPull = (await alice.issues.listComments({ ...o, issue_number: pull })).data;
    expect(onPull.map((c) => [c.user?.login, c.body])).toEqual([['alice', '/baton review-pr']]);

    const wrong = await mcp.call('baton_start_run', { ...target, workflow: 'review-pr', pr: issue });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain(`acme/widgets#${issue} is an issue, not a pull request`);
    expect((await alice.issues.listComments({ ...o, issue_number: issue })).data).toEqual([]);

    const branch = await mcp.call('baton_start_run', { ...target, workflow: 'review-pr', pr: 'feature' });
    expect(branch.isError).toBe(true);
    expect(text(branch)).toContain("on GitHub `pr` is the pull request's number");
    const both = await mcp.call('baton_start_run', { ...target, number: issue, workflow: 'review-pr', pr: pull });
    expect(both.isError).toBe(true);
    expect(text(both)).toContain('name different threads');
    emu.assertNoViolations();
  });
});
