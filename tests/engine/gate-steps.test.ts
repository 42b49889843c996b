import { describe, expect, it } from 'vitest';
import { agent, checks, pullRequest, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

const approved = { approved: true, summary: 'LGTM', comments: [] };
const rejected = { approved: false, summary: 'Needs a test', comments: [{ path: 'src/a.ts', line: 3, body: 'add a test' }] };

describe('review', () => {
  const wf = workflow([agent('impl'), review('review', { fix: 'impl', maxRounds: 2 })]);

  function atReview(w = wf): Run {
    const r = new Run(w);
    r.start();
    r.complete('impl');
    return r;
  }

  it('dispatches the reviewer on the run branch head, read-only, with the review schema', () => {
    const r = atReview();
    const d = r.dispatch('review');
    expect(d).toMatchObject({ kind: 'review', agent: 'reviewer', base: 'head1', writes: false, branch: null, slot: 'review' });
    expect(d.prompt).toContain('the diff between `main` and `baton/r1`');
    expect(d.outputsSchema).toMatchObject({ required: ['approved', 'summary'] });
  });

  it('passes when the reviewer approves', () => {
    const r = atReview();
    r.finish('review', approved);
    expect(r.status('review')).toBe('succeeded');
    expect(r.step('review').outputs).toEqual({ approved: true, summary: 'LGTM', comments: [], rounds: 0 });
  });

  it('runs a fix round with the comments, then reviews again', () => {
    const r = atReview();
    r.finish('review', rejected);
    const fix = r.dispatch('review', 'fix-1');
    expect(fix).toMatchObject({ kind: 'fix', agent: 'coder', branch: 'baton/steps/r1/review-fix-1', writes: true, base: 'head1', key: 'r1/review/fix-1/1' });
    expect(fix.feedback).toEqual({ source: 'review', summary: 'Needs a test', comments: rejected.comments, checks: [] });
    expect(fix.prompt).toContain('src/a.ts:3: add a test');
    expect(fix.prompt).toContain('The original task was:\nDo impl');
    r.complete('review', null, { slot: 'fix-1' });
    expect(r.dispatch('review', 'review')).toMatchObject({ attempt: 2, base: 'head2', key: 'r1/review/review/2' });
    r.finish('review', approved, { slot: 'review' });
    expect(r.step('review').outputs).toMatchObject({ approved: true, rounds: 1 });
    expect(r.state.status).toBe('succeeded');
  });

  it('fails after max-rounds fix rounds that did not satisfy the reviewer', () => {
    const r = atReview();
    for (let round = 1; round <= 2; round++) {
      r.finish('review', rejected, { slot: 'review' });
      r.complete('review', null, { slot: `fix-${round}` });
    }
    r.finish('review', rejected, { slot: 'review' });
    expect(r.dispatches().filter((d) => d.kind === 'fix')).toHaveLength(2);
    expect(r.state.reason).toBe('step `review` failed: the reviewer requested changes: Needs a test (after 2 fix rounds)');
  });

  it('fails at once without a fix step', () => {
    const r = atReview(workflow([agent('impl'), review('review')]));
    r.finish('review', rejected);
    expect(r.state.reason).toBe('step `review` failed: the reviewer requested changes: Needs a test');
  });

  it('retries a reviewer whose answer does not match the review schema', () => {
    const r = atReview(workflow([agent('impl'), review('review', { fix: 'impl', retries: 1 })]));
    r.finish('review', { looks: 'fine' });
    expect(r.dispatch('review').previousError).toMatch(/must have required property 'approved'/);
  });

  it('passes when a maintainer approves the PR, cancelling the reviewer', () => {
    const r = atReview();
    r.send({ type: 'review.submitted', actor: 'bob', permission: 'maintain', state: 'approved', body: 'ship it', comments: [] });
    expect(r.status('review')).toBe('succeeded');
    expect(r.of('cancel-worker')).toEqual([expect.objectContaining({ step: 'review', slot: 'review' })]);
  });

  it('turns a human "changes requested" into a fix round with their comments', () => {
    const r = atReview();
    const comments = [{ path: 'README.md', line: 1, body: 'typo' }];
    r.send({ type: 'review.submitted', actor: 'bob', permission: 'write', state: 'changes_requested', body: 'one thing', comments });
    expect(r.dispatch('review', 'fix-1').feedback).toEqual({ source: 'human-review', summary: 'one thing', by: 'bob', comments, checks: [] });
    expect(r.dispatch('review', 'fix-1').prompt).toContain('Review by @bob (quoted below');
  });

  it('handles a human review that arrives during a fix round right after it', () => {
    const r = atReview();
    r.finish('review', rejected);
    r.send({ type: 'review.submitted', actor: 'bob', permission: 'write', state: 'changes_requested', body: 'also this', comments: [] });
    expect(r.dispatches().filter((d) => d.slot === 'fix-2')).toHaveLength(0);
    r.complete('review', null, { slot: 'fix-1' });
    expect(r.dispatch('review', 'fix-2').feedback?.summary).toBe('also this');
  });

  it('ignores reviews from people without the workflow’s roles', () => {
    const r = atReview();
    r.send({ type: 'review.submitted', actor: 'eve', permission: 'read', state: 'approved', body: 'lgtm', comments: [] });
    expect(r.status('review')).toBe('running');
  });

  it('posts the agent review on the PR (as a comment review) when a PR exists', () => {
    const r = new Run(workflow([agent('impl'), pullRequest('pr'), review('review', { fix: 'impl' })]));
    r.start();
    r.complete('impl');
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 7, url: 'https://x/pull/7' });
    r.finish('review', rejected);
    expect(r.of('post-review')).toEqual([
      expect.objectContaining({ prNumber: 7, approved: false, body: 'Needs a test', comments: rejected.comments }),
    ]);
  });
});

describe('checks', () => {
  const wf = workflow([agent('impl'), checks('ci', { names: ['test', 'lint'], fix: 'impl', maxRounds: 1, timeoutMinutes: 60 })]);

  function atChecks(w = wf): Run {
    const r = new Run(w);
    r.start();
    r.complete('impl');
    return r;
  }

  it('waits until every named check on the head has completed, then passes', () => {
    const r = atChecks();
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'lint', conclusion: null }] });
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'lint', conclusion: 'neutral' }] });
    expect(r.status('ci')).toBe('succeeded');
    expect(r.step('ci').outputs).toEqual({
      sha: 'head1',
      rounds: 0,
      checks: [
        { name: 'test', conclusion: 'success' },
        { name: 'lint', conclusion: 'neutral' },
      ],
    });
  });

  it('keeps nothing of CI reported before the gate waits (no record write), and reads the head when it starts', () => {
    const r = new Run(wf);
    r.start();
    r.finish('impl');
    const before = r.state;
    const early = r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }, { name: 'lint', conclusion: 'success' }] });
    // The very same state: a host has nothing to claim or write for it.
    expect(r.state).toBe(before);
    expect(early).toEqual([]);
    r.merge();
    expect(r.status('ci')).toBe('running');
    const [read] = r.of('read-checks');
    expect(read).toMatchObject({ step: 'ci', sha: 'head1', branch: 'baton/r1' });
    // The host answers the read with what GitHub has: the gate decides on it.
    r.send({ type: 'checks.reported', key: read!.key, sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }, { name: 'lint', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('succeeded');
  });

  it('reads the new head when a fix round moves it, and ignores reports on the old one', () => {
    const r = atChecks();
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'failure' }, { name: 'lint', conclusion: 'success' }] });
    r.complete('ci', null, { slot: 'fix-1' });
    expect(r.of('read-checks', r.all).map((c) => c.sha)).toEqual(['head1', 'head2']);
    const state = r.state;
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }] });
    expect(r.state).toBe(state);
    expect(r.status('ci')).toBe('running');
  });

  it('keeps the newest result GitHub recorded, whatever order they arrive in', () => {
    const r = atChecks();
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success', at: '2026-01-01T00:00:05Z' }] });
    // A pending result recorded earlier, or in the same second, arrives late: old news.
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: null, at: '2026-01-01T00:00:01Z' }] });
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: null, at: '2026-01-01T00:00:05.000Z' }] });
    expect(r.state.checks['head1']!.results['test']!.conclusion).toBe('success');
    // A result recorded later counts (a check run again): lint pending, then done.
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'lint', conclusion: null, at: '2026-01-01T00:00:02Z' }] });
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'lint', conclusion: 'success', at: '2026-01-01T00:00:09Z' }] });
    expect(r.status('ci')).toBe('succeeded');
  });

  it('ignores results for other commits', () => {
    const r = atChecks();
    r.send({ type: 'checks.reported', sha: 'base0', checks: [{ name: 'test', conclusion: 'success' }, { name: 'lint', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('running');
  });

  it('runs a fix round with the failing output, then waits for the new head', () => {
    const r = atChecks();
    r.send({
      type: 'checks.reported',
      sha: 'head1',
      checks: [
        { name: 'test', conclusion: 'failure', summary: 'expected 1 to be 2' },
        { name: 'lint', conclusion: 'success' },
      ],
    });
    const fix = r.dispatch('ci', 'fix-1');
    expect(fix).toMatchObject({ kind: 'fix', branch: 'baton/steps/r1/ci-fix-1' });
    expect(fix.feedback?.checks).toEqual([{ name: 'test', conclusion: 'failure', summary: 'expected 1 to be 2' }]);
    expect(fix.prompt).toContain('test (failure)\nexpected 1 to be 2');
    r.complete('ci', null, { slot: 'fix-1' });
    expect(r.state.head).toBe('head2');
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head2', checks: [{ name: 'test', conclusion: 'success' }, { name: 'lint', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('succeeded');
    expect(r.step('ci').outputs).toMatchObject({ sha: 'head2', rounds: 1 });
  });

  it('fails naming the failing checks once the fix rounds are used up', () => {
    const r = atChecks();
    const red = [{ name: 'test', conclusion: 'failure' }, { name: 'lint', conclusion: 'success' }];
    r.send({ type: 'checks.reported', sha: 'head1', checks: red });
    r.complete('ci', null, { slot: 'fix-1' });
    r.send({ type: 'checks.reported', sha: 'head2', checks: [{ name: 'test', conclusion: 'timed_out' }, { name: 'lint', conclusion: 'success' }] });
    expect(r.state.reason).toBe('step `ci` failed: checks failed: test (timed_out) (after 1 fix round)');
  });

  it('fails when the checks do not complete within timeout-minutes', () => {
    const r = atChecks();
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }] });
    r.pass(59);
    expect(r.status('ci')).toBe('running');
    const out = r.pass(1);
    expect(r.state.reason).toBe('step `ci` failed: checks did not complete within 60 minutes (still waiting for lint)');
    // Said in the thread as a comment of its own (a status comment's edit notifies nobody), keyed once per opening.
    expect(r.of('reply', out)).toEqual([
      expect.objectContaining({ key: 'r1/ci/1/deadline', body: '⏰ @alice, step `ci` of run `r1` waited past its deadline: checks did not complete within 60 minutes (still waiting for lint). The run failed. `/baton retry ci` waits again.' }),
    ]);
  });

  it('with names ["*"], waits for the host to say every suite completed, ignoring baton’s own checks', () => {
    const r = atChecks(workflow([agent('impl'), checks('ci', { names: ['*'] })]));
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'build', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'baton / wf / impl', conclusion: 'failure' }], complete: true });
    expect(r.status('ci')).toBe('succeeded');
  });

  it('dispatches the CI workflow itself when `workflow:` is set (the GITHUB_TOKEN gotcha)', () => {
    const r = atChecks(workflow([agent('impl'), checks('ci', { workflow: 'ci.yml' })]));
    expect(r.of('dispatch-checks-workflow')).toEqual([
      expect.objectContaining({ workflowFile: 'ci.yml', ref: 'baton/r1', sha: 'head1' }),
    ]);
  });
});

describe('pull-request', () => {
  const wf = workflow([agent('impl', { writes: false }), pullRequest('pr', { body: 'Closes #${{ issue.number }}', labels: ['bot'], retries: 1 })]);

  it('opens the PR from the run branch with rendered title and body', () => {
    const r = new Run(wf);
    r.start();
    r.finish('impl');
    expect(r.of('ensure-pull-request')).toEqual([
      expect.objectContaining({
        head: 'baton/r1',
        base: 'main',
        title: 'Fix #42',
        draft: true,
        labels: ['bot'],
        body: 'Closes #42\n\n---\nOpened by baton run `r1` (workflow `wf`).',
      }),
    ]);
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 9, url: 'https://x/pull/9' });
    expect(r.step('pr').outputs).toEqual({ number: 9, url: 'https://x/pull/9' });
    expect(r.state.pr).toEqual({ number: 9, url: 'https://x/pull/9' });
    expect(r.state.status).toBe('succeeded');
  });

  it('retries a failed API call, then fails with the error', () => {
    const r = new Run(wf);
    r.start();
    r.finish('impl');
    r.send({ type: 'pull-request.failed', step: 'pr', error: '502' });
    expect(r.of('ensure-pull-request')).toHaveLength(1);
    r.send({ type: 'pull-request.failed', step: 'pr', error: 'Validation Failed' });
    expect(r.state.reason).toBe('step `pr` failed: could not open the pull request: Validation Failed');
  });
});
