// The checks gate and CI that waits for a person: GitHub creates the `pull_request` runs a
// workflow's GITHUB_TOKEN causes waiting for approval (conclusion `action_required`, as a
// check run or as a whole suite with none), and an app may ask for an action the same way.
// The gate waits, says so, never starts a fix round for it; and `names: ["*"]` never takes
// "no checks at all" for green.
import { describe, expect, it } from 'vitest';
import { renderRecord } from '../../src/record/render.ts';
import { agent, checks, workflow } from './builder.ts';
import { Run } from './harness.ts';

function atChecks(names: string[], timeoutMinutes = 60): Run {
  const r = new Run(workflow([agent('impl'), checks('ci', { names, fix: 'impl', maxRounds: 2, timeoutMinutes })]));
  r.start();
  r.complete('impl');
  return r;
}

const fixRounds = (r: Run) => r.dispatches().filter((c) => c.step === 'ci');
const ciChecks = (r: Run) => r.of('check-run', r.all).filter((c) => c.name.endsWith('/ ci'));
const statusRow = (r: Run) => renderRecord(r.state, r.workflow).split('\n').find((l) => l.includes('| ci |')) ?? '';

describe('checks gate: action_required is waiting for approval', () => {
  it('a check run waiting for approval: no fix round, the status and check run say so and how to avoid it; approved and green, it passes', () => {
    const r = atChecks(['test']);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'action_required' }] });
    expect(r.status('ci')).toBe('running');
    expect(fixRounds(r)).toEqual([]);
    expect(r.step('ci').gate?.phase).toBe('waiting-checks');
    expect(statusRow(r)).toContain('waiting for approval: test');
    const shown = ciChecks(r).at(-1)!;
    expect(shown).toMatchObject({ status: 'in_progress', title: 'waiting for approval: test' });
    expect(shown.summary).toContain('baton init --app-token');
    expect(shown.summary).toContain('`workflow: <ci file>`');
    // A person approves: the job runs and passes.
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('succeeded');
    expect(fixRounds(r)).toEqual([]);
    expect(statusRow(r)).not.toContain('approval');
  });

  it('a check run never approved: fails at the timeout naming it and what to do', () => {
    const r = atChecks(['test', 'lint'], 45);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'action_required' }, { name: 'lint', conclusion: 'success' }] });
    r.pass(45);
    expect(r.state.reason).toMatch(/^step `ci` failed: checks did not complete within 45 minutes \(waiting for approval: test — approve them on the pull request; .*`baton init --app-token`.*`workflow:`/);
    expect(fixRounds(r)).toEqual([]);
  });

  it('approved and red: the fix round starts then, with the real failure', () => {
    const r = atChecks(['test']);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'action_required' }] });
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'failure', summary: 'expected 1 to be 2' }] });
    expect(r.dispatch('ci', 'fix-1').feedback?.checks).toEqual([{ name: 'test', conclusion: 'failure', summary: 'expected 1 to be 2' }]);
  });

  it('a whole suite held for approval (no check runs): the named gate names it while waiting, then times out saying what to do', () => {
    const r = atChecks(['test'], 30);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'action_required' }] });
    expect(r.status('ci')).toBe('running');
    expect(statusRow(r)).toContain('waiting for approval: workflow CI');
    r.pass(30);
    expect(r.status('ci')).toBe('failed');
    expect(r.state.reason).toContain('step `ci` failed: checks did not complete within 30 minutes (still waiting for test; waiting for approval: workflow CI — approve them on the pull request');
    expect(r.state.reason).toContain('baton init --app-token');
    expect(fixRounds(r)).toEqual([]);
  });

  it('a held suite, approved: its check runs say it runs, `*` waits for the suite to end, then passes', () => {
    const r = atChecks(['*']);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'action_required' }] });
    expect(statusRow(r)).toContain('waiting for approval: workflow CI');
    // Approved: a job's check run completes while the suite still runs.
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }], suites: [{ id: '77', label: '', conclusion: null }] });
    expect(r.status('ci')).toBe('running');
    expect(statusRow(r)).toContain('waiting for checks');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }, { name: 'lint', conclusion: 'success' }], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('succeeded');
    expect(r.step('ci').outputs).toMatchObject({ checks: [{ name: 'test' }, { name: 'lint' }] });
  });

  it("a check run's report handled after its suite's end does not make the suite run again", () => {
    const r = atChecks(['*']);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'action_required' }] });
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'success' }] });
    expect(r.status('ci')).toBe('succeeded');
    const late = atChecks(['*']);
    late.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'action_required' }] });
    late.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true, suites: [{ id: '77', label: 'workflow CI', conclusion: 'success' }] });
    late.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'test', conclusion: 'success' }], suites: [{ id: '77', label: '', conclusion: null }] });
    expect(late.status('ci')).toBe('succeeded');
  });

  it('with names ["*"], a check waiting for approval among green ones holds the gate; no fix round', () => {
    const r = atChecks(['*']);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'lint', conclusion: 'success' }, { name: 'test', conclusion: 'action_required' }], complete: true });
    expect(r.status('ci')).toBe('running');
    expect(fixRounds(r)).toEqual([]);
    expect(statusRow(r)).toContain('waiting for approval: test');
  });
});

describe('checks gate: names ["*"] and no checks at all', () => {
  it('does not pass when every suite completed but no check besides baton’s own ever reported; times out saying so', () => {
    const r = atChecks(['*'], 20);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true });
    expect(r.status('ci')).toBe('running');
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'baton / wf / impl', conclusion: 'success' }], complete: true });
    expect(r.status('ci')).toBe('running');
    r.pass(20);
    expect(r.status('ci')).toBe('failed');
    expect(r.state.reason).toBe('step `ci` failed: no check reported on head1 within 20 minutes (`names: ["*"]` needs at least one check besides baton\'s own)');
  });

  it('passes once a real check reports', () => {
    const r = atChecks(['*'], 20);
    r.send({ type: 'checks.reported', sha: 'head1', checks: [], complete: true });
    r.send({ type: 'checks.reported', sha: 'head1', checks: [{ name: 'build', conclusion: 'success' }], complete: true });
    expect(r.status('ci')).toBe('succeeded');
  });
});
