// The library's review-pr, as `baton init --mode app` writes it, on the emulator with the App
// and the real worker: pull request events (not a label) start it, it posts one review with
// inline comments and a suggested change, and its check run says what was posted; a draft is
// reviewed once marked ready, a reopened pull request again; a late `synchronize` about a head
// the pull request has moved past starts nothing; a review GitHub refuses fails the run visibly.
// One App and emulator serve every scenario (each on its own pull request): set-up is the
// costly part, and the scenarios share nothing but the installation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import { initFiles } from '../actions-only/harness.ts';
import { markReadyForReview } from '../emulator/ready-for-review.ts';
import { startHarness, type AgentScript, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const FILE = 'src/app.txt';

/** Every review the fake reviewer writes: two comments on lines of src/app.txt (one with a suggested change) and one on no line. */
const REVIEWER: AgentScript = {
  'review/review': [
    {
      output: {
        approved: false,
        summary: `Looked at ${FILE}: two lines to change.`,
        comments: [
          { path: FILE, line: 3, start_line: 2, body: 'Name these constants.', suggestion: 'const TWO = 2;\nconst THREE = 3;' },
          { path: FILE, line: 5, body: 'This line has no test.' },
          { body: 'Add a changelog line.' },
        ],
      },
    },
  ],
};

let h: Harness;
let initialised: Record<string, string>;
beforeAll(async () => {
  initialised = await initFiles(['--mode', 'app', '--workflows', 'review-pr']);
  h = await startHarness({ files: initialised, agents: REVIEWER, roles: { alice: 'admin', bob: 'write' } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

let branches = 0;
/** `author` pushes a branch adding src/app.txt (five lines) and opens a pull request from it; returns its number and head. */
async function openPull(author: string, opts: { draft?: boolean } = {}): Promise<{ pull: number; head: string; branch: string }> {
  const as = h.as(author);
  const branch = `feature-${++branches}`;
  const main = (await as.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await as.rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: main });
  const head = (await as.rest.repos.createOrUpdateFileContents({ ...o, path: FILE, branch, message: 'Add the app', content: b64('one\ntwo\nthree\nfour\nfive\n') })).data.commit.sha!;
  const pull = (await as.rest.pulls.create({ ...o, title: `Add the app (${branch})`, head: branch, base: 'main', body: 'Please review.', draft: opts.draft ?? false })).data.number;
  return { pull, head, branch };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function push(author: string, branch: string, content: string): Promise<string> {
  const as = h.as(author);
  const sha = (await as.rest.repos.getContent({ ...o, path: FILE, ref: branch })).data as { sha: string };
  return (await as.rest.repos.createOrUpdateFileContents({ ...o, path: FILE, branch, sha: sha.sha, message: 'Change the app', content: b64(content) })).data.commit.sha!;
}

/** The runs recorded on thread `n`: `[runId, status, head]`, oldest first. */
async function runsOn(n: number): Promise<Array<{ runId: string; status: string; head: string; baseBranch: string; startedBy: string }>> {
  return (await h.comments(n)).flatMap((body) => {
    if (!body.includes('baton:record')) return [];
    const read = readStateBlock(body, undefined, { unsignedRead: true });
    return read.ok ? [{ runId: read.state.runId, status: read.state.status, head: read.state.head, baseBranch: read.state.baseBranch, startedBy: read.state.startedBy }] : [];
  });
}

const reviewsOf = async (pull: number) => (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pull })).data;

/** The check runs on `sha` named for the review step of run `runId`. */
async function reviewChecks(sha: string, runId: string) {
  const all = (await h.as('alice').rest.checks.listForRef({ ...o, ref: sha, per_page: 100 })).data.check_runs;
  return all.filter((c) => c.name.includes(runId) || (c.external_id ?? '').includes(runId));
}

describe('app: the library review-pr on pull request events', () => {
  it('the generated files are the library workflow and a worker that installs its agent', () => {
    expect(initialised['.agents/workflows/review-pr.yml']).toContain('pull_request:');
    expect(initialised['.github/workflows/baton-worker.yml']).toContain('INPUT_CLIS: claude-code');
  });

  it('a pull request opened → one COMMENT review with inline comments and a suggested change; the step\'s check run says what was posted', async () => {
    const { pull, head } = await openPull('bob');
    await h.settle();
    const runId = `review-pr-${pull}-1`;

    // Started by the event, not a label: the pull request has none.
    expect((await h.as('alice').rest.issues.listLabelsOnIssue({ ...o, issue_number: pull })).data).toEqual([]);
    expect(await runsOn(pull)).toEqual([expect.objectContaining({ runId, status: 'succeeded', startedBy: 'bob' })]);

    const reviews = await reviewsOf(pull);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ state: 'COMMENTED', user: { login: 'baton[bot]' }, commit_id: head });
    expect(reviews[0]!.body).toContain(`Looked at ${FILE}: two lines to change.`);
    expect(reviews[0]!.body).toContain(`Reviewed commit ${head} (1 file changed).`);
    expect(reviews[0]!.body).toContain('- Add a changelog line.');
    const comments = (await h.as('alice').rest.pulls.listReviewComments({ ...o, pull_number: pull })).data;
    expect(comments.map((c) => [c.path, c.start_line ?? null, c.line])).toEqual([
      [FILE, 2, 3],
      [FILE, null, 5],
    ]);
    expect(comments[0]!.body).toBe('Name these constants.\n\n```suggestion\nconst TWO = 2;\nconst THREE = 3;\n```');

    const checks = await reviewChecks(head, runId);
    expect(checks.map((c) => `${c.name}: ${c.conclusion}`).sort()).toEqual(['baton / review-pr / review: success', 'baton / review-pr: success']);
    const step = checks.find((c) => c.name === 'baton / review-pr / review')!;
    expect(step.output.title).toBe(`commented on #${pull}`);
    expect(step.output.summary).toContain(`Looked at ${FILE}: two lines to change.`);
    expect(step.output.summary).toContain(reviews[0]!.html_url);
  }, 90_000);

  it('a draft starts nothing; marked ready for review (GitHub\'s `ready_for_review`), it is reviewed', async () => {
    const { pull, head } = await openPull('bob', { draft: true });
    await h.settle();
    expect(await runsOn(pull)).toEqual([]);
    expect(await reviewsOf(pull)).toEqual([]);

    await markReadyForReview(h.emu, { ...o, number: pull, login: 'bob' });
    await h.settle();
    const ready = h.emu.webhooks.deliveries.filter((d) => d.event === 'pull_request' && d.action === 'ready_for_review');
    expect(ready.map((d) => (d.payload as { pull_request: { number: number; draft: boolean } }).pull_request)).toEqual([expect.objectContaining({ number: pull, draft: false })]);
    expect(await runsOn(pull)).toEqual([expect.objectContaining({ runId: `review-pr-${pull}-1`, status: 'succeeded' })]);
    expect((await reviewsOf(pull)).map((r) => [r.state, r.commit_id])).toEqual([['COMMENTED', head]]);
  }, 90_000);

  it('closed, then reopened: the reopened pull request is reviewed again by a run of its own', async () => {
    const { pull } = await openPull('bob');
    await h.settle();
    await h.as('bob').rest.pulls.update({ ...o, pull_number: pull, state: 'closed' });
    await h.settle();
    expect((await runsOn(pull)).map((r) => r.runId)).toEqual([`review-pr-${pull}-1`]);

    await h.as('alice').rest.pulls.update({ ...o, pull_number: pull, state: 'open' });
    await h.settle();
    expect(await runsOn(pull)).toEqual([
      expect.objectContaining({ runId: `review-pr-${pull}-1`, status: 'succeeded', startedBy: 'bob' }),
      expect.objectContaining({ runId: `review-pr-${pull}-2`, status: 'succeeded', startedBy: 'alice' }),
    ]);
    expect((await reviewsOf(pull)).map((r) => r.state)).toEqual(['COMMENTED', 'COMMENTED']);
  }, 90_000);

  it('a late `synchronize` about a head the pull request has moved past starts nothing', async () => {
    const { pull, branch } = await openPull('bob');
    await h.settle();
    // GitHub promises no order: the first push's delivery arrives after the second push's.
    h.emu.faults.addWebhook({ kind: 'delay', event: 'pull_request.synchronize', times: 1, delayMs: 2500 });
    const older = await push('bob', branch, 'one\ntwo\nthree\nfour\nfive\nsix\n');
    const newer = await push('bob', branch, 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    await h.settle();

    const syncs = h.emu.webhooks.deliveries.filter((d) => d.event === 'pull_request' && d.action === 'synchronize' && (d.payload as { number: number }).number === pull);
    // Both were delivered and taken, the older one after the newer one was answered.
    const about = (sha: string) => syncs.find((d) => (d.payload as { after: string }).after === sha)!;
    expect([about(older).status, about(newer).status]).toEqual([200, 200]);
    expect(about(older).sentAt!).toBeGreaterThan(about(newer).answeredAt!);
    const runs = await runsOn(pull);
    expect(runs.map((r) => r.runId)).toEqual([`review-pr-${pull}-1`, `review-pr-${pull}-2`]);
    expect(runs[1]!.status).toBe('succeeded');
    // Only the heads the pull request had when an event about them arrived were reviewed.
    const reviewed = (await reviewsOf(pull)).map((r) => r.commit_id);
    expect(reviewed).toHaveLength(2);
    expect(reviewed).not.toContain(older);
    expect(reviewed[1]).toBe(newer);
  }, 90_000);

  it('a review GitHub refuses fails the run visibly: no green check, the status comment and the check run give GitHub\'s answer', async () => {
    // GitHub answers 404 to the review (the pull request is no longer visible to the App).
    h.emu.faults.add({ kind: 'not-found', route: 'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', times: 1 });
    const { pull, head } = await openPull('bob');
    await h.settle();
    const runId = `review-pr-${pull}-1`;

    expect(h.emu.faults.injected.map((f) => f.target)).toContain('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews');
    expect(await reviewsOf(pull)).toEqual([]);
    expect(await runsOn(pull)).toEqual([expect.objectContaining({ runId, status: 'failed' })]);
    const record = await h.record(pull);
    expect(record).toContain('| ❌ | Review the pull request | failed: the review could not be posted on #');
    expect(record).toContain('GitHub refused the COMMENT review (404)');
    const checks = await reviewChecks(head, runId);
    expect(checks.map((c) => `${c.name}: ${c.conclusion}`).sort()).toEqual(['baton / review-pr / review: failure', 'baton / review-pr: failure']);
    expect(checks.find((c) => c.name === 'baton / review-pr / review')!.output.title).toContain('GitHub refused the COMMENT review (404)');
  }, 90_000);

  it('one sweep after the reviews ended removes their run branches (a review commits nothing: they hold nothing of their own); the reviews and records stay', async () => {
    const runBranches = async () => (await h.as('alice').request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'heads/baton/' })).data.map((r) => r.ref);
    const left = await runBranches();
    // One per run of the scenarios above, finished ones (succeeded, cancelled, failed) alike.
    expect(left.length).toBeGreaterThanOrEqual(6);
    const reviews = (await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'all', per_page: 100 })).length;

    const report = await h.app.sweep();
    await h.settle();
    expect(report.branchesRemoved).toBe(left.length);
    expect(await runBranches()).toEqual([]);
    expect((await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'all', per_page: 100 })).length).toBe(reviews);
    expect(await runsOn(1)).toEqual([expect.objectContaining({ runId: 'review-pr-1-1', status: 'succeeded' })]);
    // The next sweep finds no run to read.
    expect((await h.app.sweep()).runs).toBe(0);
  }, 90_000);
});
