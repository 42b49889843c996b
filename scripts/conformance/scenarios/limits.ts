/** GitHub's size limits in its own units: bytes for a check run's summary, characters for a comment. */
import { attempt, show } from '../observe.ts';
import type { Scenario } from '../types.ts';
import { PREFIX, scratchCommit, scratchIssue } from './support.ts';

const CHECK_RUNS = 'POST /repos/{owner}/{repo}/check-runs';

export const checkSummaryBytes: Scenario = {
  name: 'check run summary limit',
  assumption: { row: 'Check run summary and text' },
  claim: '65535 bytes: 201; 65538 bytes: 422 Validation Failed: summary exceeds a maximum bytesize of 65535',
  needs: ['app'],
  routes: ['GET /repos/{owner}/{repo}', 'GET /repos/{owner}/{repo}/git/ref/{ref}', 'POST /repos/{owner}/{repo}/git/trees', 'POST /repos/{owner}/{repo}/git/commits', 'POST /repos/{owner}/{repo}/git/refs', 'DELETE /repos/{owner}/{repo}/git/refs/{ref}', CHECK_RUNS],
  requests: 9,
  async run(ctx) {
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    const { sha } = await scratchCommit(ctx, app, 'limits');
    // Three bytes a character: 21,845 are 65,535 bytes; one more is over in bytes, far under in characters.
    const post = (chars: number) =>
      attempt(app.request(CHECK_RUNS, { owner, repo, name: `${PREFIX} limits`, head_sha: sha, status: 'completed', conclusion: 'neutral', output: { title: 'limits', summary: '漢'.repeat(chars) } }));
    const fits = await post(21_845);
    const over = await post(21_846);
    return { answer: `65535 bytes: ${show(fits)}; 65538 bytes: ${show(over)}` };
  },
};

export const commentCharacters: Scenario = {
  name: 'issue comment limit',
  assumption: { row: 'Issue comment body' },
  claim: '65536 chars: 201; 65537 chars: 422 Validation Failed: Body is too long (maximum is 65536 characters)',
  needs: ['actor'],
  routes: [
    'POST /repos/{owner}/{repo}/issues',
    'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
    'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
  ],
  requests: 5,
  async run(ctx) {
    const octokit = ctx.as('actor');
    const { owner, repo } = ctx.target;
    const issue = await scratchIssue(ctx, octokit);
    const comment = (chars: number) => attempt(octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, body: 'x'.repeat(chars) }));
    const fits = await comment(65_536);
    if (fits.ok) ctx.cleanup(`comment ${fits.data.id}`, () => octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: fits.data.id }));
    const over = await comment(65_537);
    if (over.ok) ctx.cleanup(`comment ${over.data.id}`, () => octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: over.data.id }));
    return { answer: `65536 chars: ${show(fits)}; 65537 chars: ${show(over)}` };
  },
};

const MINUTE_MS = 60_000;
const WHOLE_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/**
 * The stamps baton's claim pruning reads (src/app/prune.ts): a comment's `updated_at`, moved by
 * an edit, against the `Date` of a later answer — whole seconds, within a minute of each other.
 * Waits 2 s between the post and the edit, so that a whole-second stamp can move.
 */
export const commentStamps: Scenario = {
  name: 'comment stamps and the Date header',
  assumption: { row: 'Timestamps and the `Date` header' },
  claim: 'posted: updated_at = created_at, whole seconds, Date within a minute; edited: created_at kept, updated_at later; listed: updated_at as edited, Date within a minute',
  needs: ['actor'],
  routes: [
    'POST /repos/{owner}/{repo}/issues',
    'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
    'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
  ],
  requests: 6,
  async run(ctx) {
    const octokit = ctx.as('actor');
    const { owner, repo } = ctx.target;
    const issue = await scratchIssue(ctx, octokit);
    const near = (date: string | undefined, stamp: string) => date !== undefined && Math.abs(Date.parse(date) - Date.parse(stamp)) < MINUTE_MS;
    const posted = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, body: 'first' });
    const id = posted.data.id;
    ctx.cleanup(`comment ${id}`, () => octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: id }));
    const p = posted.data;
    const postedSays = `${p.updated_at === p.created_at ? 'updated_at = created_at' : `updated_at ${p.updated_at} ≠ created_at ${p.created_at}`}, ${WHOLE_SECONDS.test(p.created_at) ? 'whole seconds' : `stamp ${p.created_at}`}, ${near(posted.headers.date, p.created_at) ? 'Date within a minute' : `Date ${posted.headers.date ?? 'missing'}`}`;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const edited = (await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: id, body: 'second' })).data;
    const editedSays = `${edited.created_at === p.created_at ? 'created_at kept' : 'created_at changed'}, ${Date.parse(edited.updated_at) > Date.parse(p.updated_at) ? 'updated_at later' : 'updated_at not later'}`;
    const listed = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, per_page: 100 });
    const mine = listed.data.find((c) => c.id === id);
    const listedSays = `${mine?.updated_at === edited.updated_at ? 'updated_at as edited' : `updated_at ${mine?.updated_at ?? 'missing'}`}, ${near(listed.headers.date, edited.updated_at) ? 'Date within a minute' : `Date ${listed.headers.date ?? 'missing'}`}`;
    return { answer: `posted: ${postedSays}; edited: ${editedSays}; listed: ${listedSays}` };
  },
};
