// `PUT /pulls/{n}/merge` as GitHub answers it (REST docs "Merge a pull request"): the three
// merge methods, the head `sha` check (409), not mergeable (405), the workflow-file rule on the
// base update, and the push and `pull_request.closed` (merged) it sends.
import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';

let emu: Emulator;
let alice: Octokit;
let app: Octokit;
const o = { owner: 'acme', repo: 'widgets' };

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(o.owner, o.repo, { 'README.md': '# widgets\n', 'a.txt': 'a\n', '.github/workflows/ci.yml': 'on: push\n' });
  const inst = emu.store.installation(o.owner);
  app = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.issue(inst.id, inst.permissions, undefined).token });
  alice = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('alice') });
});
afterEach(() => {
  expect(emu.violations.splice(0)).toEqual([]);
});
afterAll(async () => emu.close());

const tip = async (branch: string) => (await alice.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: `heads/${branch}` })).data.object.sha;

/** A branch off main with `files` committed, one commit per entry, as alice, and a PR for it. */
async function pullWith(branch: string, ...commits: Array<Record<string, string>>): Promise<{ number: number; head: string }> {
  let sha = await tip('main');
  await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: `refs/heads/${branch}`, sha });
  for (const files of commits) {
    const tree = await alice.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: sha, tree: Object.entries(files).map(([path, content]) => ({ path, mode: '100644' as const, type: 'blob' as const, content })) });
    sha = (await alice.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message: `change ${Object.keys(files).join(', ')}`, tree: tree.data.sha, parents: [sha] })).data.sha;
    await alice.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...o, ref: `heads/${branch}`, sha });
  }
  const pr = await alice.rest.pulls.create({ ...o, head: branch, base: 'main', title: `PR ${branch}` });
  return { number: pr.data.number, head: sha };
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message?: string } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    const e = error as { status: number; response?: { data: { message?: string } } };
    return { status: e.status, message: e.response?.data.message };
  }
}

const fileOn = async (ref: string, path: string) => {
  const res = await alice.request('GET /repos/{owner}/{repo}/contents/{path}', { ...o, path, ref });
  return Buffer.from((res.data as { content: string }).content, 'base64').toString('utf8');
};

describe('merging a pull request', () => {
  it('merges with a merge commit, closes the PR as merged, and sends the push and pull_request.closed (merged)', async () => {
    const pr = await pullWith('m1', { 'm1.txt': 'one\n' });
    const before = await tip('main');
    const sent = emu.webhooks.deliveries.length;
    const res = await app.rest.pulls.merge({ ...o, pull_number: pr.number, sha: pr.head });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ sha: expect.stringMatching(/^[0-9a-f]{40}$/), merged: true, message: 'Pull Request successfully merged' });
    expect(await tip('main')).toBe(res.data.sha);
    const commit = await alice.rest.git.getCommit({ ...o, commit_sha: res.data.sha });
    expect(commit.data.parents.map((p) => p.sha)).toEqual([before, pr.head]);
    const pull = (await alice.rest.pulls.get({ ...o, pull_number: pr.number })).data;
    expect(pull).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: res.data.sha, merged_by: { login: emu.store.app.botLogin } });
    expect(pull.merged_at).not.toBeNull();
    await emu.webhooks.idle();
    const events = emu.webhooks.deliveries.slice(sent);
    expect(events.find((d) => d.event === 'push')?.payload).toMatchObject({ ref: 'refs/heads/main', before, after: res.data.sha });
    expect(events.find((d) => d.event === 'pull_request')).toMatchObject({ action: 'closed', payload: { pull_request: { merged: true, number: pr.number } } });
    // The head branch stays (GitHub deletes it only when the repository says so).
    expect(await tip('m1')).toBe(pr.head);
    // Merged once: a second merge is not mergeable.
    expect(await refusal(app.rest.pulls.merge({ ...o, pull_number: pr.number }))).toEqual({ status: 405, message: 'Pull Request is not mergeable' });
  });

  it('squashes into one commit on the base, and rebases each commit onto it', async () => {
    const squash = await pullWith('s1', { 's1.txt': 'one\n' }, { 's1.txt': 'two\n' });
    const before = await tip('main');
    const squashed = await alice.rest.pulls.merge({ ...o, pull_number: squash.number, merge_method: 'squash' });
    const commit = await alice.rest.git.getCommit({ ...o, commit_sha: squashed.data.sha });
    expect(commit.data.parents.map((p) => p.sha)).toEqual([before]);
    expect(commit.data.message).toMatch(/^PR s1 \(#\d+\)/);
    expect(await fileOn('main', 's1.txt')).toBe('two\n');

    const rebase = await pullWith('r1', { 'r1.txt': 'one\n' }, { 'r2.txt': 'two\n' });
    // main moves after the branch was made: the rebase replays both commits on the new tip.
    await alice.rest.pulls.merge({ ...o, pull_number: (await pullWith('r0', { 'r0.txt': 'zero\n' })).number });
    const onto = await tip('main');
    const rebased = await alice.rest.pulls.merge({ ...o, pull_number: rebase.number, merge_method: 'rebase' });
    const second = await alice.rest.git.getCommit({ ...o, commit_sha: rebased.data.sha });
    const first = await alice.rest.git.getCommit({ ...o, commit_sha: second.data.parents[0]!.sha });
    expect(first.data.parents.map((p) => p.sha)).toEqual([onto]);
    expect([first.data.message, second.data.message].map((m) => m.trim())).toEqual(['change r1.txt', 'change r2.txt']);
    expect([await fileOn('main', 'r0.txt'), await fileOn('main', 'r1.txt'), await fileOn('main', 'r2.txt')]).toEqual(['zero\n', 'one\n', 'two\n']);
  });

  it("refuses a sha that is not the PR's head (409) and a conflicting PR (405), leaving the base where it was", async () => {
    const pr = await pullWith('c1', { 'a.txt': 'from the branch\n' });
    expect(await refusal(alice.rest.pulls.merge({ ...o, pull_number: pr.number, sha: 'f'.repeat(40) }))).toEqual({ status: 409, message: 'Head branch was modified. Review and try the merge again.' });
    await alice.rest.pulls.merge({ ...o, pull_number: (await pullWith('c0', { 'a.txt': 'from main\n' })).number });
    const before = await tip('main');
    for (const merge_method of ['merge', 'squash', 'rebase'] as const) {
      expect(await refusal(alice.rest.pulls.merge({ ...o, pull_number: pr.number, merge_method }))).toEqual({ status: 405, message: 'Pull Request is not mergeable' });
    }
    expect(await tip('main')).toBe(before);
    expect((await alice.rest.pulls.get({ ...o, pull_number: pr.number })).data).toMatchObject({ state: 'open', merged: false });
  });

  it('refuses an App without the workflows permission a merge that changes a workflow file, as merges do', async () => {
    const pr = await pullWith('w1', { '.github/workflows/ci.yml': 'on: [push, pull_request]\n' });
    const before = await tip('main');
    expect(await refusal(app.rest.pulls.merge({ ...o, pull_number: pr.number }))).toEqual({
      status: 403,
      message: 'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission',
    });
    expect(await tip('main')).toBe(before);
    // A person may.
    await alice.rest.pulls.merge({ ...o, pull_number: pr.number });
    expect(await fileOn('main', '.github/workflows/ci.yml')).toBe('on: [push, pull_request]\n');
  });
});
