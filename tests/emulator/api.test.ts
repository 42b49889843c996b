// Octokit against every endpoint group of the emulator, checking status codes, bodies
// and that no answer broke GitHub's OpenAPI description (emu.assertNoViolations()).
import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeJwt } from './app-jwt.ts';
import { startEmulator, type Emulator } from './emulator.ts';

let emu: Emulator;
let app: Octokit;
let alice: Octokit;
const owner = 'acme';
const repo = 'widgets';

beforeAll(async () => {
  // Every route's answer, one after another through one installation: more writes a minute than
  // GitHub's secondary limits allow, which secondary-limits.test.ts tests on their own.
  emu = await startEmulator({ secondaryLimits: { counted: false } });
  await emu.createRepo(owner, repo, { 'README.md': '# widgets\n', 'src/index.ts': 'export const a = 1;\n' }, { visibility: 'private' });
  emu.store.setRole(owner, repo, 'alice', 'write');
  app = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { contents: 'write', issues: 'write', pull_requests: 'write', checks: 'write', statuses: 'write', metadata: 'read' }, login: 'baton[bot]' }) });
  alice = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('alice') });
});

afterEach(() => {
  expect(emu.violations.splice(0)).toEqual([]);
});
afterAll(async () => emu.close());

/** The deliberate malformed requests of a test were each recorded as a violation (and taken off the list). */
function expectMalformed(...routes: string[]) {
  expect(emu.violations.splice(0)).toEqual(routes.map((r) => expect.stringContaining(`malformed request ${r} by `)));
}

/** Sends a request the typed client would not let us write (invalid on purpose). */
function raw(octokit: Octokit, route: string, params: Record<string, unknown>) {
  return octokit.request(route, params);
}

async function status(promise: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await promise;
    return { status: 200, data: undefined };
  } catch (error) {
    const e = error as { status: number; response?: { data: unknown } };
    return { status: e.status, data: e.response?.data };
  }
}

describe('repository', () => {
  it('gets the repository, also under /api/v3', async () => {
    const { data } = await app.repos.get({ owner, repo });
    expect(data).toMatchObject({ full_name: 'acme/widgets', default_branch: 'main', private: true, visibility: 'private' });
    const ghes = new Octokit({ baseUrl: `${emu.url}/api/v3`, auth: emu.auth.userToken('alice') });
    expect((await ghes.repos.get({ owner, repo })).data.id).toBe(data.id);
  });

  it('answers 404 with GitHub’s body for an unknown repository', async () => {
    const { status: code, data } = await status(alice.repos.get({ owner, repo: 'nope' }));
    expect(code).toBe(404);
    expect(data).toMatchObject({ message: 'Not Found', documentation_url: expect.any(String) });
  });

  it('reports collaborator permissions from the roles tests set', async () => {
    emu.store.setRole(owner, repo, 'mallory', 'read');
    emu.store.setRole(owner, repo, 'maude', 'maintain');
    const perm = async (username: string) => (await app.repos.getCollaboratorPermissionLevel({ owner, repo, username })).data;
    expect(await perm('alice')).toMatchObject({ permission: 'write', role_name: 'write' });
    expect(await perm('mallory')).toMatchObject({ permission: 'read' });
    expect(await perm('maude')).toMatchObject({ permission: 'write', role_name: 'maintain' });
    expect(await perm('acme')).toMatchObject({ permission: 'admin' });
  });
});

describe('collaborator permission, as GitHub answers it', () => {
  const perm = (username: string) => app.repos.getCollaboratorPermissionLevel({ owner, repo, username });
  afterEach(() => emu.store.setVisibility(owner, repo, 'private'));

  it('answers `none` for a non-collaborator of a private repository and `read` for anyone on a public one', async () => {
    expect((await perm('stranger')).data).toMatchObject({ permission: 'none' });
    emu.store.setVisibility(owner, repo, 'public');
    expect((await perm('stranger')).data).toMatchObject({ permission: 'read', role_name: 'read' });
    expect((await app.repos.get({ owner, repo })).data).toMatchObject({ private: false, visibility: 'public' });
    // A collaborator keeps their own role.
    expect((await perm('alice')).data).toMatchObject({ permission: 'write' });
  });

  it('answers 404 for accounts that are not users (apps, Copilot), collaborator or not', async () => {
    emu.store.user('Copilot', 'Bot');
    emu.store.setVisibility(owner, repo, 'public');
    for (const login of ['Copilot', 'renovate[bot]']) {
      const { status: code, data } = await status(perm(login));
      expect(code).toBe(404);
      expect(data).toMatchObject({ message: `${login} is not a user` });
    }
  });
});

describe('issues, comments, labels, reactions', () => {
  it('creates, gets, updates and lists issues', async () => {
    const { data: created, status: code } = await alice.issues.create({ owner, repo, title: 'Widgets wobble', body: 'They do.', labels: ['bug'] });
    expect(code).toBe(201);
    expect(created).toMatchObject({ number: expect.any(Number), state: 'open', user: { login: 'alice' }, labels: [{ name: 'bug' }] });
    const { data: got } = await app.issues.get({ owner, repo, issue_number: created.number });
    expect(got.title).toBe('Widgets wobble');
    const { data: updated } = await app.issues.update({ owner, repo, issue_number: created.number, state: 'closed' });
    expect(updated).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const open = await app.issues.listForRepo({ owner, repo });
    expect(open.data.map((i) => i.number)).not.toContain(created.number);
    const all = await app.issues.listForRepo({ owner, repo, state: 'all', labels: 'bug' });
    expect(all.data.map((i) => i.number)).toContain(created.number);
  });

  it('rejects an issue without a title with 422 and errors[]', async () => {
    const { status: code, data } = await status(raw(app, 'POST /repos/{owner}/{repo}/issues', { owner, repo, body: 'no title' }));
    expect(code).toBe(422);
    expect(data).toMatchObject({ message: expect.stringContaining('"title" wasn\'t supplied'), errors: [{ field: 'title', code: 'missing_field' }] });
    expectMalformed('POST /repos/{owner}/{repo}/issues');
  });

  it('answers 404 for an unknown or malformed issue number', async () => {
    expect((await status(app.issues.get({ owner, repo, issue_number: 9999 }))).status).toBe(404);
    expect((await status(raw(app, 'GET /repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: 'abc' }))).status).toBe(404);
  });

  it('creates, edits, gets, lists and deletes comments', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Comments' });
    const { data: comment, status: code } = await app.issues.createComment({ owner, repo, issue_number: issue.number, body: 'status: queued' });
    expect(code).toBe(201);
    expect(comment).toMatchObject({ body: 'status: queued', user: { login: 'baton[bot]', type: 'Bot' }, performed_via_github_app: { slug: 'baton' } });
    const { data: edited } = await app.issues.updateComment({ owner, repo, comment_id: comment.id, body: 'status: running' });
    expect(edited.body).toBe('status: running');
    expect((await app.issues.getComment({ owner, repo, comment_id: comment.id })).data.body).toBe('status: running');
    await alice.issues.createComment({ owner, repo, issue_number: issue.number, body: '/baton status' });
    const { data: list } = await app.issues.listComments({ owner, repo, issue_number: issue.number });
    expect(list.map((c) => c.body)).toEqual(['status: running', '/baton status']);
    expect((await app.issues.get({ owner, repo, issue_number: issue.number })).data.comments).toBe(2);
    await app.issues.deleteComment({ owner, repo, comment_id: comment.id });
    expect((await status(app.issues.getComment({ owner, repo, comment_id: comment.id }))).status).toBe(404);
  });

  it("stamps a comment's created_at and updated_at, and every answer's Date, in whole seconds on GitHub's clock", async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Clock' });
    const posted = await app.issues.createComment({ owner, repo, issue_number: issue.number, body: 'first' });
    const postedAt = Date.parse(posted.headers.date!);
    expect(posted.data.updated_at).toBe(posted.data.created_at);
    expect(posted.data.created_at).toMatch(/T\d\d:\d\d:\d\dZ$/);
    expect(Math.abs(Date.parse(posted.data.created_at) - postedAt)).toBeLessThan(2_000);
    // An hour passes on GitHub's clock (no sleep): the edit is stamped then, and the answers say so.
    emu.clock.advance(3_600_000);
    const edited = await app.issues.updateComment({ owner, repo, comment_id: posted.data.id, body: 'second' });
    expect(edited.data.created_at).toBe(posted.data.created_at);
    expect(Date.parse(edited.data.updated_at) - Date.parse(posted.data.created_at)).toBeGreaterThanOrEqual(3_600_000);
    const listed = await app.issues.listComments({ owner, repo, issue_number: issue.number });
    expect(listed.data[0]!.updated_at).toBe(edited.data.updated_at);
    expect(listed.headers.date).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(Date.parse(listed.headers.date!) - postedAt).toBeGreaterThanOrEqual(3_600_000);
    expect(Math.abs(Date.parse(listed.headers.date!) - Date.parse(edited.data.updated_at))).toBeLessThan(2_000);
  });

  it('refuses a comment over 65536 characters', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Long' });
    const { status: code, data } = await status(app.issues.createComment({ owner, repo, issue_number: issue.number, body: 'x'.repeat(65537) }));
    expect(code).toBe(422);
    expect(data).toMatchObject({ errors: [{ code: 'custom' }] });
  });

  it('paginates with a Link header', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Many comments' });
    for (let i = 0; i < 5; i++) await app.issues.createComment({ owner, repo, issue_number: issue.number, body: `c${i}` });
    const all = await app.paginate(app.issues.listComments, { owner, repo, issue_number: issue.number, per_page: 2 });
    expect(all.map((c) => c.body)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('adds and removes labels, creating unknown ones', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Labels' });
    const { data: labels } = await app.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ['baton:fix-issue', 'p1'] });
    expect(labels.map((l) => l.name)).toEqual(['baton:fix-issue', 'p1']);
    const { data: after } = await app.issues.removeLabel({ owner, repo, issue_number: issue.number, name: 'baton:fix-issue' });
    expect(after.map((l) => l.name)).toEqual(['p1']);
    const missing = await status(app.issues.removeLabel({ owner, repo, issue_number: issue.number, name: 'nope' }));
    expect(missing).toMatchObject({ status: 404, data: { message: 'Label does not exist' } });
    expect((await app.issues.listLabelsOnIssue({ owner, repo, issue_number: issue.number })).data).toHaveLength(1);
    const { data: label } = await app.issues.createLabel({ owner, repo, name: 'needs-info', color: 'fbca04', description: 'Waiting' });
    expect(label).toMatchObject({ name: 'needs-info', color: 'fbca04' });
    const dup = await status(app.issues.createLabel({ owner, repo, name: 'needs-info' }));
    expect(dup).toMatchObject({ status: 422, data: { errors: [{ code: 'already_exists' }] } });
    const otherCase = await status(app.issues.createLabel({ owner, repo, name: 'Needs-Info' }));
    expect(otherCase).toMatchObject({ status: 422, data: { errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }] } });
  });

  it("lists the repository's labels a page at a time, and takes an existing label in its own spelling", async () => {
    const o = { owner, repo: 'gadgets' };
    await emu.createRepo(owner, o.repo, { 'README.md': '# gadgets\n' });
    const bot = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ ...o, permissions: { issues: 'write', metadata: 'read' }, login: 'baton[bot]' }) });
    for (let i = 0; i < 105; i++) await bot.issues.createLabel({ ...o, name: `area-${i}` });
    await bot.issues.createLabel({ ...o, name: 'Bug' });
    const first = await bot.issues.listLabelsForRepo({ ...o, per_page: 100 });
    expect(first.data).toHaveLength(100);
    expect(first.headers.link).toContain('rel="next"');
    const all = await bot.paginate(bot.issues.listLabelsForRepo, { ...o, per_page: 100 });
    expect(all.map((l) => l.name)).toEqual([...Array.from({ length: 105 }, (_, i) => `area-${i}`), 'Bug']);
    const { data: issue } = await bot.issues.create({ ...o, title: 'Spelling' });
    const { data: labels } = await bot.issues.addLabels({ ...o, issue_number: issue.number, labels: ['bug'] });
    expect(labels.map((l) => l.name)).toEqual(['Bug']);
  });

  it('refuses more than 100 labels on an issue, counting those it has', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'Many labels' });
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `many-${from + i}`);
    expect((await app.issues.addLabels({ owner, repo, issue_number: issue.number, labels: names(0, 99) })).data).toHaveLength(99);
    const over = await status(app.issues.addLabels({ owner, repo, issue_number: issue.number, labels: names(99, 2) }));
    expect(over).toMatchObject({ status: 422, data: { message: 'Validation Failed', errors: [{ message: 'Issues cannot have more than 100 labels' }] } });
    // Labels it already has do not count twice.
    expect((await app.issues.addLabels({ owner, repo, issue_number: issue.number, labels: [...names(0, 99), 'many-99'] })).data).toHaveLength(100);
  });

  it('refuses labels GitHub refuses: names over 50 characters, descriptions over 100, colours with #', async () => {
    const fifty = 'n'.repeat(50);
    expect((await app.issues.createLabel({ owner, repo, name: fifty })).status).toBe(201);
    const long = await status(app.issues.createLabel({ owner, repo, name: 'n'.repeat(51) }));
    expect(long).toMatchObject({ status: 422, data: { message: 'Validation Failed', errors: [{ resource: 'Label', code: 'custom', field: 'name', message: 'name is too long (maximum is 50 characters)' }] } });
    const wordy = await status(app.issues.createLabel({ owner, repo, name: 'wordy', description: 'd'.repeat(101) }));
    expect(wordy).toMatchObject({ status: 422, data: { errors: [{ resource: 'Label', field: 'description', message: 'description is too long (maximum is 100 characters)' }] } });
    expect((await app.issues.createLabel({ owner, repo, name: 'wordy', description: 'd'.repeat(100) })).status).toBe(201);
    const hash = await status(app.issues.createLabel({ owner, repo, name: 'hash', color: '#5319e7' }));
    expect(hash).toMatchObject({ status: 422, data: { errors: [{ resource: 'Label', code: 'invalid', field: 'color' }] } });
    expect((await app.issues.getLabel({ owner, repo, name: 'p1' })).data.name).toBe('p1');
  });

  it('reacts to issues and comments, once per user and content', async () => {
    const { data: issue } = await alice.issues.create({ owner, repo, title: 'React' });
    const first = await app.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: 'eyes' });
    expect(first.status).toBe(201);
    const again = await app.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: 'eyes' });
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    expect((await app.reactions.listForIssue({ owner, repo, issue_number: issue.number })).data).toHaveLength(1);
    expect((await app.issues.get({ owner, repo, issue_number: issue.number })).data.reactions).toMatchObject({ eyes: 1, total_count: 1 });
    const { data: comment } = await alice.issues.createComment({ owner, repo, issue_number: issue.number, body: '/baton fix-issue' });
    await app.reactions.createForIssueComment({ owner, repo, comment_id: comment.id, content: '+1' });
    expect((await app.reactions.listForIssueComment({ owner, repo, comment_id: comment.id })).data[0]).toMatchObject({ content: '+1', user: { login: 'baton[bot]' } });
    const bad = await status(raw(app, 'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', { owner, repo, issue_number: issue.number, content: 'party' }));
    expect(bad.status).toBe(422);
    expectMalformed('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions');
  });
});

describe('check runs and statuses', () => {
  it('creates, updates, gets and lists check runs for a ref', async () => {
    const { data: ref } = await app.git.getRef({ owner, repo, ref: 'heads/main' });
    const sha = ref.object.sha;
    const { data: run, status: code } = await app.checks.create({ owner, repo, name: 'baton / fix-issue / plan', head_sha: sha, status: 'in_progress', external_id: 'fix-issue-1/plan/1' });
    expect(code).toBe(201);
    expect(run).toMatchObject({ status: 'in_progress', conclusion: null, external_id: 'fix-issue-1/plan/1', app: { slug: 'baton' } });
    const { data: done } = await app.checks.update({ owner, repo, check_run_id: run.id, conclusion: 'success', output: { title: 'Planned', summary: '4 tasks' } });
    expect(done).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'Planned', summary: '4 tasks' } });
    expect((await app.checks.get({ owner, repo, check_run_id: run.id })).data.completed_at).not.toBeNull();
    await app.checks.create({ owner, repo, name: 'baton / fix-issue', head_sha: sha });
    const byName = await app.checks.listForRef({ owner, repo, ref: 'main', check_name: 'baton / fix-issue / plan' });
    expect(byName.data).toMatchObject({ total_count: 1, check_runs: [{ id: run.id }] });
    expect((await app.checks.listForRef({ owner, repo, ref: sha })).data.total_count).toBe(2);
    const suite = await app.checks.getSuite({ owner, repo, check_suite_id: run.check_suite!.id });
    expect(suite.data).toMatchObject({ head_sha: sha, status: 'in_progress', latest_check_runs_count: 2 });
  });

  it('creates a check run already completed, keeping the started_at it is given (REST docs, "Create a check run")', async () => {
    const sha = (await app.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    const startedAt = '2026-01-02T03:04:05Z';
    const { data: run } = await app.checks.create({ owner, repo, name: 'baton / w / a', head_sha: sha, status: 'completed', conclusion: 'success', started_at: startedAt, completed_at: '2026-01-02T03:09:05Z' });
    expect(run).toMatchObject({ status: 'completed', conclusion: 'success', started_at: startedAt, completed_at: '2026-01-02T03:09:05Z' });
    expect((await app.checks.get({ owner, repo, check_run_id: run.id })).data.started_at).toBe(startedAt);
    // "Required if you provide completed_at or a status of completed": no conclusion, no check run.
    const bare = await status(app.checks.create({ owner, repo, name: 'x', head_sha: sha, status: 'completed', started_at: startedAt }));
    expect(bare).toMatchObject({ status: 422, data: { errors: [{ field: 'conclusion', code: 'missing_field' }] } });
    const ended = await status(app.checks.create({ owner, repo, name: 'x', head_sha: sha, completed_at: '2026-01-02T03:09:05Z' }));
    expect(ended).toMatchObject({ status: 422, data: { errors: [{ field: 'conclusion', code: 'missing_field' }] } });
  });

  it('refuses a check run on an unknown commit and output over 65535 characters', async () => {
    const unknown = await status(app.checks.create({ owner, repo, name: 'x', head_sha: 'f'.repeat(40) }));
    expect(unknown.status).toBe(422);
    const sha = (await app.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    const big = await status(app.checks.create({ owner, repo, name: 'x', head_sha: sha, output: { title: 't', summary: 's'.repeat(65536) } }));
    // GitHub's recorded answer (github/docs#35252), not the request validator's: a refusal, not a malformed request.
    expect(big).toMatchObject({ status: 422, data: { message: 'Validation Failed', errors: [{ resource: 'CheckRun', field: 'summary', code: 'custom' }] } });
  });

  it('creates statuses and combines them per context', async () => {
    const sha = (await app.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    expect((await app.repos.getCombinedStatusForRef({ owner, repo, ref: sha })).data).toMatchObject({ state: 'pending', total_count: 0 });
    await app.repos.createCommitStatus({ owner, repo, sha, state: 'pending', context: 'ci' });
    await app.repos.createCommitStatus({ owner, repo, sha, state: 'success', context: 'ci' });
    await app.repos.createCommitStatus({ owner, repo, sha, state: 'success', context: 'lint', target_url: 'https://example.com/lint' });
    const { data } = await app.repos.getCombinedStatusForRef({ owner, repo, ref: 'main' });
    expect(data).toMatchObject({ state: 'success', total_count: 2, sha });
    expect((await app.repos.listCommitStatusesForRef({ owner, repo, ref: sha })).data).toHaveLength(3);
    const bad = await status(raw(app, 'POST /repos/{owner}/{repo}/statuses/{sha}', { owner, repo, sha, state: 'great' }));
    expect(bad.status).toBe(422);
    expectMalformed('POST /repos/{owner}/{repo}/statuses/{sha}');
  });
});

describe('app endpoints', () => {
  it('hands out installation tokens for an app JWT', async () => {
    const jwt = fakeJwt();
    const asApp = new Octokit({ baseUrl: emu.apiUrl, auth: jwt });
    expect((await asApp.apps.getAuthenticated()).data).toMatchObject({ slug: 'baton', id: 1 });
    const { data: installation } = await asApp.apps.getRepoInstallation({ owner, repo });
    expect(installation).toMatchObject({ id: 1, account: { login: 'acme' } });
    const { data: token, status: code } = await asApp.apps.createInstallationAccessToken({ installation_id: installation.id });
    expect(code).toBe(201);
    const asInstallation = new Octokit({ baseUrl: emu.apiUrl, auth: token.token });
    const repos = await asInstallation.apps.listReposAccessibleToInstallation();
    expect(repos.data.repositories.map((r) => r.full_name)).toContain('acme/widgets');
    // An installation token is not an app JWT, and a JWT is not an installation token.
    expect((await status(asInstallation.apps.getAuthenticated())).status).toBe(401);
    expect((await status(asApp.issues.listForRepo({ owner, repo }))).status).toBe(403);
  });
});
