/** GitHub's size limits in its own units: bytes for a check run's summary, characters for a comment. */
import { attempt, must, show } from '../observe.ts';
import type { Scenario } from '../types.ts';
import { PREFIX, scratchCommit } from './support.ts';

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
    const issue = await must(octokit.request('POST /repos/{owner}/{repo}/issues', { owner, repo, title: `${PREFIX} scratch issue ${ctx.id} (closed by the kit)` }), 'opening an issue');
    ctx.cleanup(`issue #${issue.number}`, () =>
      octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: issue.number, state: 'closed', state_reason: 'not_planned' }),
    );
    const comment = (chars: number) => attempt(octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, body: 'x'.repeat(chars) }));
    const fits = await comment(65_536);
    if (fits.ok) ctx.cleanup(`comment ${fits.data.id}`, () => octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: fits.data.id }));
    const over = await comment(65_537);
    if (over.ok) ctx.cleanup(`comment ${over.data.id}`, () => octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: over.data.id }));
    return { answer: `65536 chars: ${show(fits)}; 65537 chars: ${show(over)}` };
  },
};
