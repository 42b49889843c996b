// A review step on a pull request the run did not open (a run bound to someone else's PR):
// where the review goes, which event it is posted as, and that the step is done only when
// the host confirms GitHub has it.
import { describe, expect, it } from 'vitest';
import type { PostReview } from '../../src/engine/commands.ts';
import type { ReviewVerdict } from '../../src/manifest/types.ts';
import { agent, pullRequest, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

const approved = { approved: true, summary: 'LGTM', comments: [] };
const rejected = { approved: false, summary: 'Needs a test', comments: [{ path: 'src/a.ts', line: 3, body: 'add a test', suggestion: 'test();' }] };

/** A run started on pull request #9, someone else's, at its review step. */
function onPull(o: { verdicts?: ReviewVerdict[]; fix?: string; fork?: true } = {}): Run {
  const r = new Run(workflow([review('review', { ...(o.verdicts ? { verdicts: o.verdicts } : {}), ...(o.fix ? { fix: o.fix } : {}) }), ...(o.fix ? [agent(o.fix, { needs: [] })] : [])]));
  r.start({ thread: { kind: 'pull', number: 9 }, issue: null, ...(o.fork && { fork: true as const }) });
  return r;
}

function posted(r: Run): PostReview[] {
  return r.of('post-review', r.all);
}

function confirm(r: Run, p: PostReview, id = 501) {
  return r.send({ type: 'review.posted', key: `${p.key}/posted`, step: p.step, attempt: p.attempt, reviewId: id, url: `https://github.com/o/r/pull/9#pullrequestreview-${id}`, event: p.event });
}

describe('a review step on a pull request the run did not open', () => {
  it('posts on the pull request the run is bound to, from the commit reviewed, and waits for GitHub', () => {
    const r = onPull();
    r.finish('review', approved);
    expect(posted(r)).toEqual([expect.objectContaining({ prNumber: 9, event: 'COMMENT', confirm: true, commit: 'base0', attempt: 1, comments: [] })]);
    expect(r.status('review')).toBe('running');
    expect(r.step('review').gate?.phase).toBe('posting');
    confirm(r, posted(r)[0]!);
    expect(r.status('review')).toBe('succeeded');
    expect(r.step('review').outputs).toEqual({ approved: true, summary: 'LGTM', comments: [], rounds: 0, event: 'COMMENT', url: 'https://github.com/o/r/pull/9#pullrequestreview-501' });
    expect(r.state.status).toBe('succeeded');
  });

  it("posts on the run's own PR once it has one, always as a comment, without waiting", () => {
    const r = new Run(workflow([agent('impl'), pullRequest('pr'), review('review', { verdicts: ['approve', 'request-changes'] })]));
    r.start({ thread: { kind: 'pull', number: 9 }, issue: null });
    r.complete('impl');
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 7, url: 'https://x/pull/7' });
    r.finish('review', approved);
    expect(posted(r)).toEqual([expect.objectContaining({ prNumber: 7, event: 'COMMENT', confirm: false })]);
    expect(r.status('review')).toBe('succeeded');
  });

  it('posts nowhere from a run on an issue before its PR exists, and passes on the verdict', () => {
    const r = new Run(workflow([review('review', { verdicts: ['approve'] }), pullRequest('pr')]));
    r.start();
    r.finish('review', approved);
    expect(posted(r)).toEqual([]);
    expect(r.status('review')).toBe('succeeded');
  });

  it('never silently green: a review-only workflow on an issue fails before its reviewer runs, saying where to start it', () => {
    const r = new Run(workflow([review('review')]));
    r.start();
    expect(r.status('review')).toBe('failed');
    expect(r.state.status).toBe('failed');
    expect(r.step('review').reason).toMatch(/nowhere to post the review: the run is on issue #\d+ and opens no pull request; start `wf` on a pull request/);
    expect(r.of('dispatch-worker', r.all)).toEqual([]);
  });

  it.each([
    [undefined, approved, 'COMMENT'],
    [undefined, rejected, 'COMMENT'],
    [['approve'], approved, 'APPROVE'],
    [['approve'], rejected, 'COMMENT'],
    [['request-changes'], rejected, 'REQUEST_CHANGES'],
    [['request-changes'], approved, 'COMMENT'],
    [['comment', 'approve', 'request-changes'], rejected, 'REQUEST_CHANGES'],
  ] as const)('with verdicts %j and the reviewer answering %j, posts %s', (verdicts, outputs, event) => {
    const r = onPull({ ...(verdicts ? { verdicts: [...verdicts] } : {}) });
    r.finish('review', outputs);
    expect(posted(r).map((p) => p.event)).toEqual([event]);
  });

  it.each([approved, rejected])("on a fork run posts a COMMENT whatever the verdicts allow (%j), and tells the host it is a fork's", (outputs) => {
    const r = onPull({ verdicts: ['comment', 'approve', 'request-changes'], fork: true });
    r.finish('review', outputs);
    expect(posted(r)).toEqual([expect.objectContaining({ event: 'COMMENT', fork: true })]);
  });

  it('without a fix step, changes requested are the review it delivers: the step succeeds once posted', () => {
    const r = onPull({ verdicts: ['request-changes'] });
    r.finish('review', rejected);
    expect(r.status('review')).toBe('running');
    confirm(r, posted(r)[0]!);
    expect(r.status('review')).toBe('succeeded');
    expect(r.step('review').outputs).toMatchObject({ approved: false, summary: 'Needs a test', comments: rejected.comments, event: 'REQUEST_CHANGES' });
    expect(r.state.status).toBe('succeeded');
  });

  it('with a fix step, changes requested start a fix round once the review is posted', () => {
    const r = onPull({ verdicts: ['request-changes'], fix: 'impl' });
    r.finish('review', rejected);
    expect(r.dispatches().filter((d) => d.kind === 'fix')).toHaveLength(0);
    confirm(r, posted(r)[0]!);
    expect(r.dispatch('review', 'fix-1').feedback).toMatchObject({ summary: 'Needs a test' });
  });

  it('fails visibly, with GitHub’s reason in the record and the check run, when the review is refused', () => {
    const r = onPull({ verdicts: ['approve'] });
    r.finish('review', approved);
    const p = posted(r)[0]!;
    r.send({ type: 'review.failed', key: `${p.key}/failed`, step: 'review', attempt: p.attempt, error: 'GitHub refused the APPROVE review (422): Unprocessable Entity: Can not approve your own pull request' });
    expect(r.status('review')).toBe('failed');
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe('step `review` failed: the review could not be posted on #9: GitHub refused the APPROVE review (422): Unprocessable Entity: Can not approve your own pull request');
    const check = r.of('check-run', r.all).pop();
    expect(check).toMatchObject({ conclusion: 'failure', title: expect.stringContaining('Can not approve your own pull request') });
  });

  it('counts a redelivered confirmation once, and ignores one for an older reviewer attempt', () => {
    const r = onPull({ verdicts: ['request-changes'], fix: 'impl' });
    r.finish('review', rejected);
    const first = posted(r)[0]!;
    confirm(r, first);
    expect(confirm(r, first)).toEqual([]);
    expect(r.dispatches().filter((d) => d.kind === 'fix')).toHaveLength(1);
    r.complete('review', null, { slot: 'fix-1' });
    r.finish('review', approved, { slot: 'review' });
    // The first review's confirmation, delivered again with a new key, says nothing about the second.
    r.send({ type: 'review.posted', step: 'review', attempt: first.attempt, reviewId: 501, url: 'u', event: first.event });
    expect(r.status('review')).toBe('running');
    confirm(r, posted(r)[1]!, 502);
    expect(r.status('review')).toBe('succeeded');
  });
});
