// Green only with the deliverable: a step whose work leaves something on GitHub is recorded done
// only once the host has read it back (engine/deliverable.ts); a read-back that misses it fails
// the step and the run, naming what is missing.
import { describe, expect, it } from 'vitest';
import { agent, ask, label, pullRequest, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

describe('deliverables read back', () => {
  it('a pull-request step waits for its pull request to be read back at the run head', () => {
    const r = new Run(workflow([agent('a'), pullRequest('pr')]));
    r.readBacks = 'manual';
    r.start();
    r.complete('a');
    r.read(r.readBack('a')!, []);
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 5, url: 'u5' });
    expect(r.readBack('pr')!.deliverable).toEqual({ kind: 'pull-request', number: 5, branch: 'baton/r1', head: r.state.head });
    expect(r.status('pr')).toBe('running');
    r.read(r.readBack('pr')!, []);
    expect(r.status('pr')).toBe('succeeded');
    expect(r.step('pr').delivered).toBe('pull request #5 at the run\'s head head1');
    expect(r.state.status).toBe('succeeded');
  });

  it('a pull request GitHub does not have fails the step, naming it', () => {
    const r = new Run(workflow([agent('a'), pullRequest('pr')]));
    r.start();
    r.complete('a');
    r.readBacks = 'manual';
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 5, url: 'u5' });
    r.read(r.readBack('pr')!, ['GitHub has no pull request #5']);
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe("step `pr` failed: reported done, but missing pull request #5 at the run's head head1: GitHub has no pull request #5");
  });

  it('labels the host says it added are read back on the issue; labels not there fail the step', () => {
    const r = new Run(workflow([label('triage')]));
    r.readBacks = 'manual';
    r.start();
    r.send({ type: 'labels.applied', step: 'triage', applied: ['bug'], unknown: [] });
    expect(r.readBack('triage')!.deliverable).toEqual({ kind: 'labels', thread: { kind: 'issue', number: 42 }, labels: ['bug'] });
    r.read(r.readBack('triage')!, ['#42 does not have `bug`']);
    expect(r.state.reason).toBe('step `triage` failed: reported done, but missing the labels `bug` on #42: #42 does not have `bug`');
  });

  it("a review on the run's own pull request is read back by its marker before the gate passes; one GitHub refused fails it", () => {
    const r = new Run(workflow([agent('a'), pullRequest('pr'), review('rev')]));
    r.start();
    r.complete('a');
    r.send({ type: 'pull-request.ensured', step: 'pr', number: 5, url: 'u5' });
    r.readBacks = 'manual';
    r.finish('rev', { approved: true, summary: 'ok' });
    const post = r.of('post-review', r.all).at(-1)!;
    expect(r.readBack('rev')!.deliverable).toEqual({ kind: 'review', prNumber: 5, marker: post.key, reviewId: null });
    expect(r.status('rev')).toBe('running');
    r.read(r.readBack('rev')!, ["GitHub has no review of baton's on #5"]);
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toContain("reported done, but missing baton's review on #5");
  });

  it('an ask step is done once its question comment is read back on the thread; a comment GitHub does not have fails it', () => {
    const r = new Run(workflow([ask('clarify')]));
    r.readBacks = 'manual';
    r.start();
    r.send({ type: 'questions.answered', answers: ['the parser'], actor: 'alice', permission: 'admin' });
    const post = r.of('post-questions', r.all).at(-1)!;
    expect(r.readBack('clarify')!.deliverable).toEqual({ kind: 'questions', thread: { kind: 'issue', number: 42 }, marker: post.key });
    r.read(r.readBack('clarify')!, ["GitHub has no comment of baton's with the questions on #42"]);
    expect(r.state.reason).toBe("step `clarify` failed: reported done, but missing the question comment on #42: GitHub has no comment of baton's with the questions on #42");
  });

  it('a late answer to an earlier read-back changes nothing', () => {
    const r = new Run(workflow([agent('a'), agent('b')]));
    r.readBacks = 'manual';
    r.start();
    r.complete('a');
    const rb = r.readBack('a')!;
    r.send({ type: 'deliverable.read', step: 'a', opening: rb.opening, seq: rb.seq + 1, missing: [] });
    expect(r.status('a')).toBe('running');
    r.read(rb, []);
    expect(r.status('a')).toBe('succeeded');
  });
});
