// A check run belongs to a commit. When the run moves on to a newer commit while one of its
// checks shows in progress on the old one (the aggregate on the commit the run started from —
// the default branch's —, a review gate across a fix round), the old one is completed, neutral,
// saying where the run went: no commit keeps a baton check in progress for ever.
import { describe, expect, it } from 'vitest';
import { agent, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

describe('check runs left on an older commit', () => {
  it('completes the aggregate shown in progress on the start commit once the run ends on a newer one', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    const started = r.of('check-run', r.all).find((c) => c.name === 'baton / wf');
    expect(started).toMatchObject({ status: 'in_progress', headSha: 'base0' });
    r.finish('a');
    r.merge();
    expect(r.state.status).toBe('succeeded');
    const aggregate = r.of('check-run', r.all).filter((c) => c.name === 'baton / wf').map((c) => [c.headSha, c.status, c.conclusion]);
    expect(aggregate).toEqual([
      ['base0', 'in_progress', null],
      ['base0', 'completed', 'neutral'],
      ['head1', 'completed', 'success'],
    ]);
    const moved = r.of('check-run', r.all).find((c) => c.name === 'baton / wf' && c.conclusion === 'neutral')!;
    expect(moved.title).toBe('Moved on to head1');
    expect(r.state.checksShown).toEqual({});
  });

  it('completes nothing when the run ends on the commit its check was shown on', () => {
    const r = new Run(workflow([agent('a', { writes: false })]));
    r.start();
    r.finish('a', { ok: true });
    const aggregate = r.of('check-run', r.all).filter((c) => c.name === 'baton / wf').map((c) => [c.headSha, c.status, c.conclusion]);
    expect(aggregate).toEqual([
      ['base0', 'in_progress', null],
      ['base0', 'completed', 'success'],
    ]);
  });

  it('completes a review gate\'s check left in progress on the commit before its fix round', () => {
    const r = new Run(workflow([agent('impl'), review('review', { fix: 'impl', maxRounds: 2 })]));
    r.start();
    r.complete('impl');
    r.finish('review', { approved: false, summary: 'Needs a test', comments: [] });
    r.complete('review', null, { slot: 'fix-1' });
    r.finish('review', { approved: true, summary: 'LGTM', comments: [] }, { slot: 'review' });
    expect(r.state.status).toBe('succeeded');
    const gate = r.of('check-run', r.all).filter((c) => c.name === 'baton / wf / review');
    // Whatever the gate showed in progress on head1 is completed there; it ends on head2.
    const openOnHead1 = gate.filter((c) => c.headSha === 'head1' && c.status === 'in_progress');
    expect(openOnHead1.length).toBeGreaterThan(0);
    expect(gate.filter((c) => c.headSha === 'head1').at(-1)).toMatchObject({ status: 'completed', conclusion: 'neutral', title: 'Moved on to head2' });
    expect(gate.at(-1)).toMatchObject({ headSha: 'head2', status: 'completed', conclusion: 'success' });
  });
});
