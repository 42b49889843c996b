// `label` steps: the names an agent chose, checked, de-duplicated, kept to the step's `labels`
// and capped before the host is asked to add them; the step waits for the host's answer and
// ends with what was added and what was dropped. A fork run adds none.
import { describe, expect, it } from 'vitest';
import { MAX_LABELS } from '../../src/engine/label-names.ts';
import { agent, label, workflow } from './builder.ts';
import { Run } from './harness.ts';

const classify = agent('classify', { writes: false });
const fromAgent = (o: Parameters<typeof label>[1] = {}) => workflow([classify, label('apply', { add: '${{ steps.classify.outputs.labels }}', ...o })]);

/** The agent answers `labels`; the step lists every name it holds unless `o.labels` says otherwise. */
function atLabels(labels: unknown, o: Parameters<typeof label>[1] = {}): Run {
  const listed = Array.isArray(labels) ? labels.filter((l): l is string => typeof l === 'string' && l.trim() !== '').map((l) => l.trim()) : [];
  const r = new Run(fromAgent({ labels: listed.length ? listed : ['bug'], ...o }));
  r.start();
  r.finish('classify', { labels } as never);
  return r;
}

describe('label step', () => {
  it("asks the host to add an agent's labels to the run's thread, and waits for its answer", () => {
    const r = atLabels(['bug', 'docs']);
    expect(r.of('apply-labels')).toEqual([expect.objectContaining({ step: 'apply', thread: { kind: 'issue', number: 42 }, labels: ['bug', 'docs'], key: 'r1/apply/labels/1/0' })]);
    expect(r.status('apply')).toBe('running');
    expect(r.state.status).toBe('running');
    r.send({ type: 'labels.applied', step: 'apply', applied: ['Bug'], unknown: ['docs'] });
    expect(r.status('apply')).toBe('succeeded');
    expect(r.step('apply').outputs).toEqual({ applied: ['Bug'], unknown: ['docs'], dropped: [] });
    expect(r.step('apply').note).toBe('added `Bug`; not labels of this repository (not created): `docs`');
    expect(r.state.status).toBe('succeeded');
  });

  it('records the answer once when the host reports it twice (a redelivery)', () => {
    const r = atLabels(['bug']);
    const answer = { type: 'labels.applied' as const, step: 'apply', applied: ['bug'], unknown: [], key: 'r1/apply/labels/1/0/applied' };
    r.send(answer);
    const after = r.state;
    expect(r.send(answer)).toEqual([]);
    expect(r.state).toBe(after);
  });

  it('drops repeats without regard to case (the first spelling kept) and blank names', () => {
    const r = atLabels(['Bug', ' bug ', 'BUG', '', '  ', 'docs', 'Docs']);
    expect(r.of('apply-labels')[0]!.labels).toEqual(['Bug', 'docs']);
  });

  it(`asks for at most ${MAX_LABELS} labels and says how many it left out`, () => {
    const many = Array.from({ length: MAX_LABELS + 7 }, (_, i) => `area-${i}`);
    const r = atLabels(many);
    const asked = r.of('apply-labels')[0]!.labels;
    expect(asked).toHaveLength(MAX_LABELS);
    expect(asked).toEqual(many.slice(0, MAX_LABELS));
    r.send({ type: 'labels.applied', step: 'apply', applied: asked, unknown: [] });
    expect(r.step('apply').note).toMatch(/7 more left out \(GitHub allows at most 100 labels on an issue\)$/);
  });

  it.each([
    ['a string', 'bug', 'expected a list of label names, got a string'],
    ['an object', { bug: true }, 'expected a list of label names, got an object'],
    ['a list with a number', ['bug', 3], 'expected a list of label names, but item 2 is a number'],
    ['a list with a list', [['bug']], 'expected a list of label names, but item 1 is a list'],
  ])('fails, naming the step, when the expression yields %s', (_, labels, error) => {
    const r = atLabels(labels);
    expect(r.of('apply-labels', r.all)).toEqual([]);
    expect(r.status('apply')).toBe('failed');
    expect(r.state.status).toBe('failed');
    expect(r.state.reason).toBe(`step \`apply\` failed: \`add\`: ${error}`);
  });

  it('succeeds at once, asking nothing, when there is no label to add (an empty list, a skipped step)', () => {
    for (const labels of [[], null, ['', ' ']]) {
      const r = atLabels(labels);
      expect(r.of('apply-labels', r.all)).toEqual([]);
      expect(r.status('apply')).toBe('succeeded');
      expect(r.step('apply').outputs).toEqual({ applied: [], unknown: [], dropped: [] });
    }
  });

  it("asks only for names the step's `labels` lists (without regard to case), and says which it dropped", () => {
    // The agent read a stranger's issue and asks for more than the triage list offers.
    const r = atLabels(['Bug', 'baton:fix', 'security', 'priority: critical', 'question'], { labels: ['bug', 'enhancement', 'question'] });
    expect(r.of('apply-labels')).toEqual([expect.objectContaining({ labels: ['Bug', 'question'] })]);
    expect(r.step('apply').note).toBe("adding `Bug`, `question`; not in the step's `labels`, so not added: `baton:fix`, `security`, `priority: critical`");
    r.send({ type: 'labels.applied', step: 'apply', applied: ['bug', 'question'], unknown: [] });
    expect(r.step('apply').outputs).toEqual({ applied: ['bug', 'question'], unknown: [], dropped: ['baton:fix', 'security', 'priority: critical'] });
    expect(r.step('apply').note).toBe("added `bug`, `question`; not in the step's `labels`, so not added: `baton:fix`, `security`, `priority: critical`");
  });

  it('succeeds asking nothing when every name is dropped, and lists them', () => {
    const r = atLabels(['security'], { labels: ['bug'] });
    expect(r.of('apply-labels', r.all)).toEqual([]);
    expect(r.status('apply')).toBe('succeeded');
    expect(r.step('apply').outputs).toEqual({ applied: [], unknown: [], dropped: ['security'] });
  });

  it("lists the names the host refused (a workflow's trigger label) among the dropped", () => {
    const r = atLabels(['bug', 'baton:fix']);
    r.send({ type: 'labels.applied', step: 'apply', applied: ['bug'], unknown: [], refused: ['baton:fix'] });
    expect(r.step('apply').outputs).toEqual({ applied: ['bug'], unknown: [], dropped: ['baton:fix'] });
    expect(r.step('apply').note).toBe('added `bug`; labels that start a workflow, so not added: `baton:fix`');
  });

  it('adds no label on a fork run: the step fails before the host is asked', () => {
    const r = new Run(fromAgent({ labels: ['bug'] }));
    r.start({ fork: true });
    r.finish('classify', { labels: ['bug'] } as never);
    expect(r.of('apply-labels', r.all)).toEqual([]);
    expect(r.status('apply')).toBe('failed');
    expect(r.state.reason).toMatch(/a run on a fork's pull request never adds labels/);
  });

  it('adds a written list, each name rendered', () => {
    const r = new Run(workflow([label('apply', { add: ['triaged', 'from-${{ inputs.team }}'], labels: ['triaged', 'from-core'] })], { inputs: { team: { type: 'string', required: false } } }));
    r.start({ inputs: { team: 'core' } });
    expect(r.of('apply-labels')[0]!.labels).toEqual(['triaged', 'from-core']);
  });

  it('retries a refused call within `retries`, then fails with GitHub\'s answer', () => {
    const r = atLabels(['bug'], { retries: 1 });
    r.send({ type: 'labels.failed', step: 'apply', error: 'GitHub refused the labels on #42 (403): Resource not accessible by integration' });
    expect(r.of('apply-labels')).toEqual([expect.objectContaining({ labels: ['bug'], key: 'r1/apply/labels/1/1' })]);
    expect(r.status('apply')).toBe('running');
    r.send({ type: 'labels.failed', step: 'apply', error: 'GitHub refused the labels on #42 (422): Validation Failed' });
    expect(r.status('apply')).toBe('failed');
    expect(r.state.reason).toBe('step `apply` failed: could not add the labels: GitHub refused the labels on #42 (422): Validation Failed');
  });

  it("says why nothing was added when the host had nothing to label, naming what was asked for", () => {
    const r = atLabels(['bug', 'docs']);
    r.send({ type: 'labels.applied', step: 'apply', applied: [], unknown: [], note: 'not added: a local run has no issue to label' });
    expect(r.status('apply')).toBe('succeeded');
    expect(r.step('apply').note).toBe('not added: a local run has no issue to label (asked for `bug`, `docs`)');
  });

  it('shows names as code spans they cannot close, control characters visible', () => {
    const r = atLabels(['a`b', '`x`', '@team \u001b[31m']);
    r.send({ type: 'labels.applied', step: 'apply', applied: [], unknown: ['a`b', '`x`', '@team \u001b[31m'] });
    expect(r.step('apply').note).toBe('added none; not labels of this repository (not created): ``a`b``, `` `x` ``, `@team ^[[31m`');
  });

  it('ignores an answer for a step that is not waiting for one', () => {
    const r = atLabels(['bug']);
    r.send({ type: 'labels.applied', step: 'classify', applied: ['x'], unknown: [] });
    expect(r.status('apply')).toBe('running');
    r.send({ type: 'cancel.requested', actor: 'alice', permission: 'admin' });
    r.send({ type: 'labels.applied', step: 'apply', applied: ['bug'], unknown: [] });
    expect(r.status('apply')).toBe('cancelled');
  });
});
