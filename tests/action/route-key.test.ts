// The concurrency key of the events baton.yml hears for automatic starts (route-key.ts):
// computed from the payload alone, before the `run` job exists. Each key is a group of its
// own: a pull request's events queue behind each other, a manifest's cron never waits behind
// the sweep, two red runs of one watched workflow are handled one after the other.
import { describe, expect, it } from 'vitest';
import { concurrencyKey } from '../../src/action/route-key.ts';
import { SWEEP_CRON } from '../../src/app/sweep-cron.ts';

describe('concurrency keys of automatic starts', () => {
  it('pull_request opened, synchronize, reopened, ready_for_review, edited: the pull request number', () => {
    for (const action of ['opened', 'synchronize', 'reopened', 'ready_for_review', 'edited']) {
      expect(concurrencyKey('pull_request', { action, pull_request: { number: 12, head: { ref: 'feature/x' } } })).toBe('12');
    }
    // baton's own pull request belongs to the run named by its branch, not to its own number.
    expect(concurrencyKey('pull_request', { action: 'synchronize', pull_request: { number: 50, head: { ref: 'baton/fix-issue-42-1' } } })).toBe('42');
  });

  it('issues opened, reopened, edited: the issue number', () => {
    for (const action of ['opened', 'reopened', 'edited']) expect(concurrencyKey('issues', { action, issue: { number: 7 } })).toBe('7');
  });

  it("schedule: the sweep's cron is the sweep; every other cron has a group of its own", () => {
    expect(concurrencyKey('schedule', { schedule: SWEEP_CRON })).toBe('sweep');
    // A payload without the cron (what baton.yml had before manifests had schedules) is the sweep.
    expect(concurrencyKey('schedule', {})).toBe('sweep');
    const monday = concurrencyKey('schedule', { schedule: '0 6 * * 1' });
    const nightly = concurrencyKey('schedule', { schedule: '17 3 * * *' });
    expect(monday).toMatch(/^schedule-[0-9a-f]{12}$/);
    expect(nightly).toMatch(/^schedule-[0-9a-f]{12}$/);
    expect(monday).not.toBe(nightly);
    // The same cron, the same group, whichever event fired it.
    expect(concurrencyKey('schedule', { schedule: '0 6 * * 1' })).toBe(monday);
    // Two spellings of one cron are one cron (cron.ts cronText), as the run job reads them.
    expect(concurrencyKey('schedule', { schedule: '*/5  * * * *' })).toBe('sweep');
  });

  it('workflow_run of a watched workflow: one group per workflow name; on a run branch, the run', () => {
    const red = (name: string, head_branch = 'main') => ({ action: 'completed', workflow_run: { name, head_branch, conclusion: 'failure' } });
    const ci = concurrencyKey('workflow_run', red('CI'));
    expect(ci).toMatch(/^doctor-[0-9a-f]{12}$/);
    // Two red runs of CI (on any branch but baton's) share the group: one after the other.
    expect(concurrencyKey('workflow_run', red('CI', 'release/2'))).toBe(ci);
    expect(concurrencyKey('workflow_run', red('Nightly build'))).not.toBe(ci);
    // A name from the payload never reaches the group as text (it is hashed).
    expect(concurrencyKey('workflow_run', red('x }} ${{ secrets.TOKEN'))).toMatch(/^doctor-[0-9a-f]{12}$/);
    // CI baton dispatched on a run branch belongs to that run.
    expect(concurrencyKey('workflow_run', red('CI', 'baton/fix-issue-42-1'))).toBe('42');
    expect(concurrencyKey('workflow_run', { action: 'completed', workflow_run: { head_branch: 'main' } })).toBeUndefined();
  });
});
