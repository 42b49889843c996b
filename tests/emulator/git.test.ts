// The Git Data, contents, merges, compare and pulls APIs over real bare repositories:
// what the API writes, a clone sees; what a push writes, the API sees.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';
import { gitEnv } from './git.ts';

let emu: Emulator;
let octokit: Octokit;
let reviewer: Octokit;
let work: string;
const owner = 'acme';
const repo = 'widgets';

// Asynchronous on purpose: a push runs the bare repository's hook, which calls back into
// the emulator in this very process; a synchronous child process would deadlock.
async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = gitEnv({ GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' });
  return (await promisify(execFile)('git', args, { cwd, env, encoding: 'utf8' })).stdout.trim();
}

async function status(promise: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    const r = (await promise) as { status: number; data: unknown };
    return { status: r.status, data: r.data };
  } catch (error) {
    const e = error as { status: number; response?: { data: unknown } };
    return { status: e.status, data: e.response?.data };
  }
}

/** Commits `files` on top of `branch` through blobs → tree → commit → ref, as baton's apply step does. */
async function commitViaApi(branch: string, files: Record<string, string | null>, message: string, create = false): Promise<string> {
  const base = create ? 'main' : branch;
  const { data: ref } = await octokit.git.getRef({ owner, repo, ref: `heads/${base}` });
  const parent = ref.object.sha;
  const { data: parentCommit } = await octokit.git.getCommit({ owner, repo, commit_sha: parent });
  const tree = [];
  for (const [path, content] of Object.entries(files)) {
    if (content === null) tree.push({ path, mode: '100644' as const, type: 'blob' as const, sha: null });
    else {
      const { data: blob } = await octokit.git.createBlob({ owner, repo, content: Buffer.from(content).toString('base64'), encoding: 'base64' });
      tree.push({ path, mode: '100644' as const, type: 'blob' as const, sha: blob.sha });
    }
  }
  const { data: newTree } = await octokit.git.createTree({ owner, repo, base_tree: parentCommit.tree.sha, tree });
  const { data: commit } = await octokit.git.createCommit({ owner, repo, message, tree: newTree.sha, parents: [parent], author: { name: 'baton', email: 'baton@example.com', date: '2025-01-01T00:00:00Z' } });
  if (create) await octokit.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: commit.sha });
  else await octokit.git.updateRef({ owner, repo, ref: `heads/${branch}`, sha: commit.sha });
  return commit.sha;
}

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo, { 'README.md': '# widgets\n', 'src/a.ts': 'export const a = 1;\n' });
  octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { contents: 'write', pull_requests: 'write' }, login: 'baton[bot]' }) });
  emu.store.setRole(owner, repo, 'rita', 'write');
  reviewer = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('rita') });
  work = mkdtempSync(join(tmpdir(), 'emu-git-test-'));
});

afterEach(() => {
  expect(emu.violations.splice(0)).toEqual([]);
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await emu.close();
});

describe('git data', () => {
  it('writes blobs, trees (with base_tree and deletions) and commits that a clone sees', async () => {
    const sha = await commitViaApi('baton/run-1', { 'src/b.ts': 'export const b = 2;\n', 'src/a.ts': null }, 'Add b, drop a', true);
    const clone = join(work, 'clone-1');
    await git(work, 'clone', '--quiet', '--branch', 'baton/run-1', emu.gitDir(owner, repo), clone);
    expect(await git(clone, 'rev-parse', 'HEAD')).toBe(sha);
    expect(readFileSync(join(clone, 'src/b.ts'), 'utf8')).toBe('export const b = 2;\n');
    expect(await git(clone, 'ls-files')).toBe('README.md\nsrc/b.ts');
    expect(await git(clone, 'log', '-1', '--format=%an <%ae> %aI %s')).toBe('baton <baton@example.com> 2025-01-01T00:00:00+00:00 Add b, drop a');

    const { data: tree } = await octokit.git.getTree({ owner, repo, tree_sha: sha, recursive: '1' });
    expect(tree.tree.map((e) => e.path)).toEqual(['README.md', 'src', 'src/b.ts']);
    const blobSha = tree.tree.find((e) => e.path === 'src/b.ts')!.sha!;
    const { data: blob } = await octokit.git.getBlob({ owner, repo, file_sha: blobSha });
    expect(Buffer.from(blob.content, 'base64').toString()).toBe('export const b = 2;\n');
  });

  it('sees a push through the API and sends a push webhook', async () => {
    const clone = join(work, 'clone-2');
    await git(work, 'clone', '--quiet', emu.gitDir(owner, repo), clone);
    await git(clone, 'checkout', '--quiet', '-b', 'feature');
    writeFileSync(join(clone, 'feature.txt'), 'hello\n');
    await git(clone, 'add', '.');
    await git(clone, 'commit', '--quiet', '-m', 'Add feature');
    await git(clone, 'push', '--quiet', 'origin', 'feature');
    const head = await git(clone, 'rev-parse', 'HEAD');
    expect((await octokit.git.getRef({ owner, repo, ref: 'heads/feature' })).data.object.sha).toBe(head);
    const { data: file } = await octokit.repos.getContent({ owner, repo, path: 'feature.txt', ref: 'feature' });
    expect(Buffer.from((file as { content: string }).content, 'base64').toString()).toBe('hello\n');
    const push = emu.webhooks.deliveries.find((d) => d.event === 'push' && d.payload.ref === 'refs/heads/feature');
    expect(push?.payload).toMatchObject({ after: head, created: true, commits: [{ message: 'Add feature', added: ['feature.txt'] }] });
  });

  it('refuses a non-fast-forward ref update unless forced, and an existing ref', async () => {
    const first = await commitViaApi('ff', { 'x.txt': '1' }, 'x1', true);
    const second = await commitViaApi('ff', { 'x.txt': '2' }, 'x2');
    const back = await status(octokit.git.updateRef({ owner, repo, ref: 'heads/ff', sha: first }));
    expect(back).toMatchObject({ status: 422, data: { message: 'Update is not a fast forward' } });
    expect((await octokit.git.updateRef({ owner, repo, ref: 'heads/ff', sha: first, force: true })).data.object.sha).toBe(first);
    expect((await status(octokit.git.createRef({ owner, repo, ref: 'refs/heads/ff', sha: second }))).data).toMatchObject({ message: 'Reference already exists' });
    expect((await status(octokit.git.createRef({ owner, repo, ref: 'refs/heads/ghost', sha: 'a'.repeat(40) }))).status).toBe(422);
    const refs = await octokit.git.listMatchingRefs({ owner, repo, ref: 'heads/f' });
    expect(refs.data.map((r) => r.ref)).toEqual(expect.arrayContaining(['refs/heads/feature', 'refs/heads/ff']));
    expect((await octokit.git.deleteRef({ owner, repo, ref: 'heads/ff' })).status).toBe(204);
    expect((await status(octokit.git.getRef({ owner, repo, ref: 'heads/ff' }))).status).toBe(404);
    expect((await status(octokit.git.deleteRef({ owner, repo, ref: 'heads/ff' }))).status).toBe(422);
  });

  it('validates git requests against the schema', async () => {
    const route: string = 'POST /repos/{owner}/{repo}/git/trees';
    const bad = await status(octokit.request(route, { owner, repo, tree: 'nope' }));
    expect(bad).toMatchObject({ status: 422, data: { message: expect.stringContaining('Invalid request') } });
    expect(emu.violations.splice(0)).toEqual([expect.stringContaining('malformed request POST /repos/{owner}/{repo}/git/trees by installation:')]);
    const noParents = await status(octokit.request('POST /repos/{owner}/{repo}/git/commits', { owner, repo, message: 'm', tree: 'b'.repeat(40) }));
    expect(noParents).toMatchObject({ status: 422, data: { message: 'Tree SHA does not exist' } });
  });
});

describe('merges, compare, contents', () => {
  it('merges (201), finds nothing to merge (204) and refuses conflicts (409)', async () => {
    await commitViaApi('m-step', { 'm.txt': 'step\n' }, 'step work', true);
    const merged = await octokit.repos.merge({ owner, repo, base: 'main', head: 'm-step' });
    expect(merged.status).toBe(201);
    expect(merged.data.parents).toHaveLength(2);
    expect((await octokit.repos.merge({ owner, repo, base: 'main', head: 'm-step' })).status).toBe(204);
    await commitViaApi('c1', { 'conflict.txt': 'one\n' }, 'one', true);
    await commitViaApi('c2', { 'conflict.txt': 'two\n' }, 'two', true);
    await octokit.repos.merge({ owner, repo, base: 'c1', head: 'c2' }).catch(() => undefined);
    const conflict = await status(octokit.repos.merge({ owner, repo, base: 'c1', head: 'c2' }));
    expect(conflict).toMatchObject({ status: 409, data: { message: 'Merge conflict' } });
    expect((await status(octokit.repos.merge({ owner, repo, base: 'nope', head: 'c2' }))).data).toMatchObject({ message: 'Base does not exist' });
  });

  it('compares two refs', async () => {
    await commitViaApi('cmp', { 'cmp.txt': 'a\nb\n' }, 'cmp', true);
    const { data } = await octokit.repos.compareCommitsWithBasehead({ owner, repo, basehead: 'main...cmp' });
    expect(data).toMatchObject({ status: 'ahead', ahead_by: 1, behind_by: 0, total_commits: 1, files: [{ filename: 'cmp.txt', status: 'added', additions: 2 }] });
    const { data: commit } = await octokit.repos.getCommit({ owner, repo, ref: 'cmp' });
    expect(commit.files?.map((f) => f.filename)).toEqual(['cmp.txt']);
  });

  it('reads files and directories and creates and updates files', async () => {
    const { data: dir } = await octokit.repos.getContent({ owner, repo, path: '' });
    expect((dir as { name: string }[]).map((e) => e.name)).toContain('README.md');
    const created = await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/new.md', message: 'Add docs', content: Buffer.from('new\n').toString('base64') });
    expect(created.status).toBe(201);
    const missingSha = await status(octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/new.md', message: 'Edit', content: Buffer.from('v2\n').toString('base64') }));
    expect(missingSha.status).toBe(422);
    const updated = await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/new.md', message: 'Edit', content: Buffer.from('v2\n').toString('base64'), sha: created.data.content!.sha! });
    expect(updated.status).toBe(200);
    const { data: docs } = await octokit.repos.getContent({ owner, repo, path: 'docs' });
    expect((docs as { path: string }[]).map((e) => e.path)).toEqual(['docs/new.md']);
    expect((await status(octokit.repos.getContent({ owner, repo, path: 'nope.md' }))).status).toBe(404);
  });
});

describe('pull requests', () => {
  it('opens, lists by head and base, updates, reviews and synchronizes a pull request', async () => {
    await commitViaApi('baton/pr-1', { 'pr.txt': 'one\n' }, 'pr work', true);
    const { data: pr, status: code } = await octokit.pulls.create({ owner, repo, title: 'Fix widgets', head: 'baton/pr-1', base: 'main', body: 'Closes #1' });
    expect(code).toBe(201);
    expect(pr).toMatchObject({ state: 'open', head: { ref: 'baton/pr-1' }, base: { ref: 'main' }, commits: 1, changed_files: 1, mergeable: true });
    const dup = await status(octokit.pulls.create({ owner, repo, title: 'Again', head: 'baton/pr-1', base: 'main' }));
    expect(dup).toMatchObject({ status: 422, data: { errors: [{ message: 'A pull request already exists for acme:baton/pr-1.' }] } });
    const badHead = await status(octokit.pulls.create({ owner, repo, title: 'x', head: 'nope', base: 'main' }));
    expect(badHead).toMatchObject({ status: 422, data: { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] } });

    expect((await octokit.pulls.list({ owner, repo, head: 'acme:baton/pr-1' })).data.map((p) => p.number)).toEqual([pr.number]);
    expect((await octokit.pulls.list({ owner, repo, base: 'other' })).data).toEqual([]);
    expect((await octokit.pulls.update({ owner, repo, pull_number: pr.number, title: 'Fix widgets (v2)' })).data.title).toBe('Fix widgets (v2)');

    const { data: review } = await reviewer.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'REQUEST_CHANGES', body: 'Please add tests', comments: [{ path: 'pr.txt', line: 1, body: 'why?' }] });
    expect(review).toMatchObject({ state: 'CHANGES_REQUESTED', user: { login: 'rita' } });
    expect((await octokit.pulls.listReviews({ owner, repo, pull_number: pr.number })).data).toHaveLength(1);
    expect((await octokit.pulls.listReviewComments({ owner, repo, pull_number: pr.number })).data[0]).toMatchObject({ path: 'pr.txt', body: 'why?' });
    const own = await status(octokit.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'APPROVE' }));
    expect(own.status).toBe(422);

    const head = await commitViaApi('baton/pr-1', { 'pr.txt': 'two\n' }, 'more work');
    expect((await octokit.pulls.get({ owner, repo, pull_number: pr.number })).data.head.sha).toBe(head);
    await emu.webhooks.idle();
    const events = emu.webhooks.deliveries.filter((d) => d.event.startsWith('pull_request')).map((d) => `${d.event}.${d.action}`);
    expect(events).toEqual(['pull_request.opened', 'pull_request.edited', 'pull_request_review.submitted', 'pull_request.synchronize']);
    expect((await octokit.pulls.update({ owner, repo, pull_number: pr.number, state: 'closed' })).data.state).toBe('closed');
  });

  it("refuses pull requests and approvals from a job's GITHUB_TOKEN until the repository allows GitHub Actions to create them", async () => {
    await commitViaApi('baton/pr-actions', { 'actions.txt': 'one\n' }, 'actions work', true);
    const job = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { contents: 'write', pull_requests: 'write' } }) });
    const refused = await status(job.pulls.create({ owner, repo, title: 'From a job', head: 'baton/pr-actions', base: 'main' }));
    expect(refused).toMatchObject({ status: 403, data: { message: 'GitHub Actions is not permitted to create or approve pull requests.' } });
    const { data: pr } = await octokit.pulls.create({ owner, repo, title: 'From the app', head: 'baton/pr-actions', base: 'main' });
    const approval = await status(job.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'APPROVE' }));
    expect(approval).toMatchObject({ status: 403, data: { message: 'GitHub Actions is not permitted to create or approve pull requests.' } });
    expect((await job.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'COMMENT', body: 'A comment is fine.' })).status).toBe(200);
    emu.store.allowActionsToCreatePullRequests(owner, repo);
    try {
      expect((await job.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'APPROVE' })).data.state).toBe('APPROVED');
      await commitViaApi('baton/pr-actions-2', { 'actions2.txt': 'two\n' }, 'more actions work', true);
      expect((await job.pulls.create({ owner, repo, title: 'From a job, allowed', head: 'baton/pr-actions-2', base: 'main' })).status).toBe(201);
    } finally {
      emu.store.allowActionsToCreatePullRequests(owner, repo, false);
    }
  });
});
