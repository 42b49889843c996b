// Where GitHub refuses what baton might do, the emulator refuses it the same way: the
// App's permissions are app.yml's, workflow files need the `workflows` permission, check
// run texts are limited in bytes, and draft pull requests need a public repository or a
// paid plan.
import { readFileSync } from 'node:fs';
import { Octokit } from '@octokit/rest';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';
import { forkCommit, openForkPullRequest } from './forks.ts';
import { READING_VALUES, type Readings } from './readings.ts';

let emu: Emulator;
let installation: Octokit;
let withWorkflows: Octokit;
let alice: Octokit;
const owner = 'acme';
const repo = 'widgets';
const o = { owner, repo };

beforeAll(async () => {
  // The tests below of trees and refs hold for the `trees` reading; each reading has its own test further down.
  emu = await startEmulator({ readings: { workflowRefusalAt: 'trees' } });
  await emu.createRepo(owner, repo, { 'README.md': '# widgets\n', '.github/workflows/ci.yml': 'on: push\n' });
  const inst = emu.store.installation(owner);
  installation = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.issue(inst.id, inst.permissions, undefined).token });
  withWorkflows = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.issue(inst.id, { ...inst.permissions, workflows: 'write' }, undefined).token });
  alice = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('alice') });
});

afterEach(() => {
  expect(emu.violations.splice(0)).toEqual([]);
});
afterAll(async () => emu.close());

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message?: string; errors?: unknown } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    const e = error as { status: number; response?: { data: { message?: string; errors?: unknown } } };
    return { status: e.status, message: e.response?.data.message, errors: e.response?.data.errors };
  }
}

const head = async () => (await installation.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: 'heads/main' })).data.object.sha;

/** A commit on main's head that changes `.github/workflows/ci.yml`, made by a person (who may). */
async function workflowCommit(): Promise<string> {
  const base = await head();
  const tree = await alice.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: base, tree: [{ path: '.github/workflows/ci.yml', mode: '100644', type: 'blob', content: 'on: [push, pull_request]\n' }] });
  return (await alice.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: 'ci', tree: tree.data.sha, parents: [base] })).data.sha;
}

describe("the App's installation", () => {
  it("holds exactly app.yml's default_permissions, and is refused what they do not grant", async () => {
    const manifest = parse(readFileSync(new URL('../../app.yml', import.meta.url), 'utf8')) as { default_permissions: Record<string, string> };
    expect(emu.store.installation(owner).permissions).toEqual(manifest.default_permissions);
    expect(manifest.default_permissions.workflows).toBeUndefined();
    // statuses: read in app.yml, so posting a commit status is GitHub's 403.
    expect(await refusal(installation.request('POST /repos/{owner}/{repo}/statuses/{sha}', { ...o, sha: await head(), state: 'success', context: 'x' }))).toEqual({
      status: 403,
      message: 'Resource not accessible by integration',
      errors: undefined,
    });
  });
});

describe('workflow files need the workflows permission', () => {
  it('refuses a tree on a base that adds or changes a workflow file (403), not one that leaves them alone', async () => {
    const base = await head();
    const add = { ...o, base_tree: base, tree: [{ path: '.github/workflows/x.yml', mode: '100644' as const, type: 'blob' as const, content: 'on: push\n' }] };
    expect(await refusal(installation.request('POST /repos/{owner}/{repo}/git/trees', add))).toMatchObject({ status: 403, message: 'Resource not accessible by integration' });
    const remove = { ...o, base_tree: base, tree: [{ path: '.github/workflows/ci.yml', mode: '100644' as const, type: 'blob' as const, sha: null }] };
    expect(await refusal(installation.request('POST /repos/{owner}/{repo}/git/trees', remove))).toMatchObject({ status: 403 });
    const other = { ...o, base_tree: base, tree: [{ path: 'docs/workflows.md', mode: '100644' as const, type: 'blob' as const, content: 'hi\n' }] };
    expect(await refusal(installation.request('POST /repos/{owner}/{repo}/git/trees', other))).toBe('ok');
    expect(await refusal(withWorkflows.request('POST /repos/{owner}/{repo}/git/trees', add))).toBe('ok');
  });

  it('refuses creating or moving a ref onto a commit whose workflow files differ (403)', async () => {
    const commit = await workflowCommit();
    const created = installation.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/wf', sha: commit });
    expect(await refusal(created)).toMatchObject({ status: 403, message: 'Resource not accessible by integration' });
    await installation.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/wf', sha: await head() });
    const moved = installation.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...o, ref: 'heads/baton/wf', sha: commit });
    expect(await refusal(moved)).toMatchObject({ status: 403, message: 'Resource not accessible by integration' });
    expect(await refusal(withWorkflows.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...o, ref: 'heads/baton/wf', sha: commit }))).toBe('ok');
  });

  it('refuses a merge or a contents write that changes a workflow file, naming it', async () => {
    const commit = await workflowCommit();
    await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/ci-change', sha: commit });
    await installation.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/into', sha: await head() });
    const named = 'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission';
    expect(await refusal(installation.request('POST /repos/{owner}/{repo}/merges', { ...o, base: 'baton/into', head: 'ci-change' }))).toMatchObject({ status: 403, message: named });
    const content = Buffer.from('on: workflow_dispatch\n').toString('base64');
    const current = (await installation.request('GET /repos/{owner}/{repo}/contents/{path}', { ...o, path: '.github/workflows/ci.yml' })).data as { sha: string };
    const put = installation.request('PUT /repos/{owner}/{repo}/contents/{path}', { ...o, path: '.github/workflows/ci.yml', message: 'ci', content, sha: current.sha, branch: 'baton/into' });
    expect(await refusal(put)).toMatchObject({ status: 403, message: named });
  });
});

describe.each(READING_VALUES.workflowRefusalAt)('where a workflow-file change is refused: %s (readings.ts)', (at: Readings['workflowRefusalAt']) => {
  let e: Emulator;
  let app: Octokit;
  let granted: Octokit;
  beforeAll(async () => {
    e = await startEmulator({ readings: { workflowRefusalAt: at } });
    await e.createRepo(owner, repo, { 'README.md': '# widgets\n', '.github/workflows/ci.yml': 'on: push\n' });
    const inst = e.store.installation(owner);
    app = new Octokit({ baseUrl: e.apiUrl, auth: e.auth.issue(inst.id, inst.permissions, undefined).token });
    granted = new Octokit({ baseUrl: e.apiUrl, auth: e.auth.issue(inst.id, { ...inst.permissions, workflows: 'write' }, undefined).token });
  });
  afterEach(() => {
    expect(e.violations.splice(0)).toEqual([]);
  });
  afterAll(async () => e.close());

  const main = async () => (await app.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: 'heads/main' })).data.object.sha;
  const tree = (as: Octokit, base: string, path: string) =>
    as.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: base, tree: [{ path, mode: '100644' as const, type: 'blob' as const, content: 'on: push\n' }] });
  const commit = (as: Octokit, treeSha: string, parents: string[]) => as.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: 'm', tree: treeSha, parents });

  it('refuses a token without `workflows` at that place, with that answer, and nothing earlier', async () => {
    const base = await main();
    const added = tree(app, base, '.github/workflows/x.yml');
    if (at === 'trees') {
      expect(await refusal(added)).toMatchObject({ status: 403, message: 'Resource not accessible by integration' });
      return;
    }
    const t = (await added).data.sha;
    if (at === 'commits') {
      expect(await refusal(commit(app, t, [base]))).toMatchObject({ status: 404, message: 'Not Found' });
      // No parent: compared with the default branch's workflow files.
      expect(await refusal(commit(app, t, []))).toMatchObject({ status: 404 });
      const mainTree = (await app.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...o, commit_sha: base })).data.tree.sha;
      expect(await refusal(commit(app, mainTree, []))).toBe('ok');
      return;
    }
    const c = (await commit(app, t, [base])).data.sha;
    const created = app.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/wf-new', sha: c });
    expect(await refusal(created)).toMatchObject({ status: 422, message: 'Reference update failed' });
    await app.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/wf', sha: base });
    const moved = app.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...o, ref: 'heads/baton/wf', sha: c });
    expect(await refusal(moved)).toMatchObject({ status: 422, message: 'Reference update failed' });
  });

  it('lets a token with `workflows` through every step, and a change that leaves workflow files alone through any token', async () => {
    const base = await main();
    for (const [as, path] of [[granted, '.github/workflows/y.yml'], [app, 'docs/workflows.md']] as const) {
      const c = (await commit(as, (await tree(as, base, path)).data.sha, [base])).data.sha;
      const branch = `baton/ok-${as === app ? 'app' : 'granted'}`;
      expect(await refusal(as.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: `refs/heads/${branch}`, sha: c }))).toBe('ok');
    }
  });
});

describe('check run output limits', () => {
  it('limits summary and text to 65,535 bytes of UTF-8, not characters', async () => {
    const sha = await head();
    const run = (output: { title: string; summary: string; text?: string }) => installation.request('POST /repos/{owner}/{repo}/check-runs', { ...o, name: 'limits', head_sha: sha, output });
    // 21,845 × 3 bytes = 65,535 bytes: fits. 21,846 CJK characters are far under 65,535 characters, yet refused.
    expect(await refusal(run({ title: 't', summary: '漢'.repeat(21_845) }))).toBe('ok');
    expect(await refusal(run({ title: 't', summary: '漢'.repeat(21_846) }))).toEqual({
      status: 422,
      message: 'Validation Failed',
      errors: [{ resource: 'CheckRun', field: 'summary', code: 'custom', message: 'summary exceeds a maximum bytesize of 65535' }],
    });
    expect(await refusal(run({ title: 't', summary: 's', text: '“'.repeat(30_000) }))).toMatchObject({ status: 422, errors: [{ field: 'text' }] });
  });

  // The description also says 65,535 characters; GitHub's recorded answer past it is still the
  // route's (github/docs#35252): the request validator leaves these fields to it.
  it('answers a summary over 65,535 characters as GitHub does, with errors[], not as a malformed request', async () => {
    const sha = await head();
    const long = await refusal(installation.request('POST /repos/{owner}/{repo}/check-runs', { ...o, name: 'limits', head_sha: sha, output: { title: 't', summary: 's'.repeat(70_000) } }));
    expect(long).toEqual({
      status: 422,
      message: 'Validation Failed',
      errors: [{ resource: 'CheckRun', field: 'summary', code: 'custom', message: 'summary exceeds a maximum bytesize of 65535' }],
    });
  });

  it('takes at most 50 annotations per request', async () => {
    const sha = await head();
    const annotations = (n: number) => Array.from({ length: n }, (_, i) => ({ path: 'README.md', start_line: 1, end_line: 1, annotation_level: 'notice' as const, message: `a${i}` }));
    const run = (n: number) => installation.request('POST /repos/{owner}/{repo}/check-runs', { ...o, name: 'annotations', head_sha: sha, output: { title: 't', summary: 's', annotations: annotations(n) } });
    expect(await refusal(run(50))).toBe('ok');
    expect(await refusal(run(51))).toMatchObject({ status: 422 });
    // The description says so: a request with 51 is a malformed one, recorded as such.
    expect(emu.violations.splice(0)).toEqual([expect.stringMatching(/^malformed request POST \/repos\/\{owner\}\/\{repo\}\/check-runs .*more than 50 items/s)]);
  });
});

describe('draft pull requests', () => {
  const open = async (repoName: string, draft: boolean) => {
    const r = { owner, repo: repoName };
    const branch = `feature-${draft}`;
    const main = (await alice.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...r, ref: 'heads/main' })).data.object.sha;
    await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...r, ref: `refs/heads/${branch}`, sha: main });
    await emu.git(owner, repoName).commitFiles(branch, { [`${branch}.txt`]: 'x\n' }, 'x');
    return refusal(alice.request('POST /repos/{owner}/{repo}/pulls', { ...r, head: branch, base: 'main', title: 't', draft }));
  };

  it('refuses a draft in a private repository on the Free plan with 422, allows a ready one', async () => {
    await emu.createRepo(owner, 'secret', undefined, { visibility: 'private', plan: 'free' });
    // A private repository does not exist for anonymous readers.
    expect(await refusal(new Octokit({ baseUrl: emu.apiUrl }).request('GET /repos/{owner}/{repo}', { owner, repo: 'secret' }))).toMatchObject({ status: 404 });
    expect((await alice.request('GET /repos/{owner}/{repo}', { owner, repo: 'secret' })).data).toMatchObject({ private: true, visibility: 'private' });
    expect(await open('secret', true)).toEqual({ status: 422, message: 'Draft pull requests are not supported in this repository.', errors: undefined });
    expect(await open('secret', false)).toBe('ok');
  });

  it('allows drafts in public repositories on every plan and in private ones on Team', async () => {
    await emu.createRepo(owner, 'open-source');
    expect(emu.repo(owner, 'open-source')).toMatchObject({ visibility: 'public', plan: 'free' });
    expect(await open('open-source', true)).toBe('ok');
    await emu.createRepo(owner, 'team-secret', undefined, { visibility: 'private', plan: 'team' });
    expect(await open('team-secret', true)).toBe('ok');
  });
});

describe('reviews', () => {
  /** A pull request by alice changing lines 2–3 of a ten-line file (hunk with context: lines 1–6). */
  async function pull(branch: string): Promise<number> {
    const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    const base = await head();
    const seed = await alice.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: base, tree: [{ path: `${branch}.txt`, mode: '100644', type: 'blob', content: ten.join('\n') + '\n' }] });
    const c1 = await alice.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: 'seed', tree: seed.data.sha, parents: [base] });
    await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: `refs/heads/${branch}-base`, sha: c1.data.sha });
    const changed = ten.map((l, i) => (i === 1 || i === 2 ? `${l} changed` : l));
    const tree = await alice.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: c1.data.sha, tree: [{ path: `${branch}.txt`, mode: '100644', type: 'blob', content: changed.join('\n') + '\n' }] });
    const c2 = await alice.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: 'change', tree: tree.data.sha, parents: [c1.data.sha] });
    await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: `refs/heads/${branch}`, sha: c2.data.sha });
    return (await alice.request('POST /repos/{owner}/{repo}/pulls', { ...o, title: branch, head: branch, base: `${branch}-base` })).data.number;
  }
  const review = (n: number, input: Record<string, unknown>) => installation.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...o, pull_number: n, ...input });

  it('refuses a whole review when an inline comment is outside the diff, or its range leaves its hunk', async () => {
    const n = await pull('diff-lines');
    const file = 'diff-lines.txt';
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', comments: [{ path: file, line: 9, side: 'RIGHT', body: 'x' }] }))).toMatchObject({
      status: 422,
      errors: ["Pull request review thread line must be part of the diff, and Pull request review thread diff hunk can't be blank"],
    });
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', comments: [{ path: 'README.md', line: 1, side: 'RIGHT', body: 'x' }] }))).toMatchObject({ status: 422 });
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', comments: [{ path: file, line: 6, start_line: 7, side: 'RIGHT', body: 'x' }] }))).toMatchObject({
      status: 422,
      errors: ['Pull request review thread start line must be part of the same hunk as the line.'],
    });
    // Nothing of a refused review is kept.
    expect((await alice.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...o, pull_number: n })).data).toEqual([]);
    // Context lines of the hunk take comments; a range within it too.
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', comments: [{ path: file, line: 6, start_line: 1, side: 'RIGHT', body: 'x' }] }))).toBe('ok');
  });

  // REST "Create a review for a pull request": commit_id "Defaults to the most recent commit in
  // the pull request"; a commit that is not one of its commits is refused (reviewdog/reviewdog#434).
  it('places a review on the commit it names, refuses one that is not the pull request\'s, and shows a comment outdated once its file changed', async () => {
    const n = await pull('on-commit');
    const file = 'on-commit.txt';
    const first = (await alice.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: n })).data.head.sha;
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', commit_id: await head(), comments: [{ path: file, line: 2, side: 'RIGHT', body: 'x' }] }))).toEqual({
      status: 422,
      message: 'Unprocessable Entity',
      errors: ['The commitOID is not part of the pull request'],
    });
    // The branch moves on: two lines first, so line 2 of the first commit is line 4 now.
    const moved = Array.from({ length: 10 }, (_, i) => `line ${i + 1}${i === 1 || i === 2 ? ' changed' : ''}`);
    const tree = await alice.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: first, tree: [{ path: file, mode: '100644', type: 'blob', content: ['new a', 'new b', ...moved].join('\n') + '\n' }] });
    const second = (await alice.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: 'more', tree: tree.data.sha, parents: [first] })).data.sha;
    await alice.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...o, ref: 'heads/on-commit', sha: second });
    // Line 2 is resolved against the named commit: part of its diff there (on the head it is not).
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', commit_id: first, comments: [{ path: file, line: 2, side: 'RIGHT', body: 'on the first' }] }))).toBe('ok');
    expect(await refusal(review(n, { event: 'COMMENT', body: 'b', comments: [{ path: file, line: 4, side: 'RIGHT', body: 'on the head' }] }))).toBe('ok');
    const comments = (await alice.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { ...o, pull_number: n })).data;
    expect(comments.map((c) => [c.body, c.commit_id, c.original_commit_id, c.line ?? null, c.original_line])).toEqual([
      ['on the first', first, first, null, 2],
      ['on the head', second, second, 4, 4],
    ]);
  });

  it('refuses a comment or change request with no body, even with inline comments', async () => {
    const n = await pull('no-body');
    for (const event of ['COMMENT', 'REQUEST_CHANGES']) {
      expect(await refusal(review(n, { event, body: '', comments: [{ path: 'no-body.txt', line: 2, side: 'RIGHT', body: 'x' }] }))).toMatchObject({ status: 422, errors: ['Body is required'] });
    }
    expect(await refusal(review(n, { event: 'APPROVE' }))).toBe('ok');
  });
});

describe.each(['does-not-exist', 'workflow-rule'] as const)("a ref at a commit only a fork has, reading forkShaRef: %s (readings.ts)", (reading) => {
  it("is refused also once GitHub's test merge commit holds the fork's commit (refs/pull/<n>/merge)", async () => {
    const e = await startEmulator({ readings: { forkShaRef: reading } });
    try {
      await e.createRepo(owner, repo, { 'README.md': '# widgets\n' });
      const inst = e.store.installation(owner);
      const app = new Octokit({ baseUrl: e.apiUrl, auth: e.auth.issue(inst.id, inst.permissions, undefined).token });
      const sha = await forkCommit(e, { ...o, fork: 'mallory', files: { 'src/app.txt': 'x\n' } });
      const number = await openForkPullRequest(e, { ...o, fork: 'mallory', branch: 'patch-1', sha, title: 'Add' });
      // What the Actions plugin writes when it looks at the pull request's event (its own moment).
      const git = e.git(owner, repo);
      const main = (await git.resolveRef('refs/heads/main'))!;
      const merge = await git.commitTree((await git.readCommit(sha)).tree, [main, sha], 'Merge', { name: 'GitHub', email: 'noreply@github.com' });
      await git.updateRef(`refs/pull/${number}/merge`, merge);
      const answer = await refusal(app.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/at-fork', sha }));
      expect(answer).toMatchObject(reading === 'does-not-exist' ? { status: 422, message: 'Reference does not exist' } : { status: 403 });
    } finally {
      await e.close();
    }
  });
});
