import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ITEMS, DEFAULT_MAX_MINUTES, DEFAULT_MAX_STEPS } from '../../src/engine/budget.ts';
import { agent, workflow } from './builder.ts';
import { Run } from './harness.ts';

describe('budget: max-steps', () => {
  it('stops before a dispatch would exceed it, keeping what was merged', () => {
    const r = new Run(workflow([agent('a'), agent('b'), agent('c')], { budget: { maxSteps: 2 } }));
    r.start();
    r.complete('a');
    r.complete('b');
    expect(r.dispatches()).toHaveLength(2);
    expect(r.state).toMatchObject({ status: 'stopped', reason: 'budget: max-steps 2 would be exceeded by step `c`', head: 'head2' });
    expect(r.status('b')).toBe('succeeded');
    expect(r.status('c')).toBe('cancelled');
    expect(r.of('finish-run')).toEqual([expect.objectContaining({ status: 'stopped' })]);
  });

  it('counts retries as worker attempts', () => {
    const r = new Run(workflow([agent('a', { retries: 5 })], { budget: { maxSteps: 2 } }));
    r.start();
    r.fail('a');
    r.fail('a');
    expect(r.dispatches()).toHaveLength(2);
    expect(r.state.status).toBe('stopped');
  });

  it('cancels the workers still running when it stops', () => {
    const r = new Run(workflow([agent('a'), agent('b', { needs: [] }), agent('c', { needs: ['a'] })], { budget: { maxSteps: 2 } }));
    r.start();
    r.complete('a');
    expect(r.state.status).toBe('stopped');
    expect(r.of('cancel-worker').map((c) => c.step)).toEqual(['b']);
  });
});

describe('budget: max-minutes', () => {
  it('stops the run once the time since it started runs out, cancelling workers', () => {
    const r = new Run(workflow([agent('a', { timeoutMinutes: 600 })], { budget: { maxMinutes: 60 } }));
    r.start();
    r.pass(59);
    expect(r.state.status).toBe('running');
    r.pass(1);
    expect(r.state).toMatchObject({ status: 'stopped', reason: 'budget: max-minutes 60 reached (the run started 60 minutes ago)' });
    expect(r.of('cancel-worker')).toHaveLength(1);
  });

  it('never dispatches after the limit, even when the event that arrives is a result', () => {
    const r = new Run(workflow([agent('a', { writes: false, timeoutMinutes: 600 }), agent('b')], { budget: { maxMinutes: 60 } }));
    r.start();
    r.now += 61 * 60_000;
    r.finish('a', 'done');
    expect(r.dispatches().map((d) => d.step)).toEqual(['a']);
    expect(r.state.status).toBe('stopped');
  });
});

describe('budget: max-cost-usd', () => {
  it("hands each attempt what is left of it, for the sandbox's proxy to refuse model requests past", () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })], { budget: { maxCostUsd: 5 } }));
    r.start();
    expect(r.dispatch('a').costCap).toEqual({ usd: 5, what: "the run's max-cost-usd $5.00" });
    r.finish('a', null, { costUsd: 1.25 });
    expect(r.dispatch('b').costCap).toEqual({ usd: 3.75, what: "what is left of the run's max-cost-usd $5.00 after $1.25 spent" });
  });

  it("hands the day's remaining money instead when it is less (per-day max-cost-usd, as left when the run started)", () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })], { budget: { maxCostUsd: 5, perDay: { maxCostUsd: 10 } } }));
    r.start({ dayCostLeftUsd: 2 });
    expect(r.dispatch('a').costCap).toEqual({ usd: 2, what: "what was left of the workflow's per-day max-cost-usd when the run started ($2.00)" });
    r.finish('a', null, { costUsd: 0.5 });
    expect(r.dispatch('b').costCap).toEqual({ usd: 1.5, what: "what was left of the workflow's per-day max-cost-usd when the run started ($2.00), less the run's $0.50 since" });
  });

  it('hands no cap when the run has none', () => {
    const r = new Run(workflow([agent('a')]));
    r.start();
    expect(r.dispatch('a').costCap).toBeNull();
  });

  it('stops as soon as reported costs exceed it', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { needs: [], writes: false })], { budget: { maxCostUsd: 5 } }));
    r.start();
    r.finish('a', null, { costUsd: 5.5 });
    expect(r.state).toMatchObject({ status: 'stopped', reason: 'budget: max-cost-usd $5.00 exceeded ($5.50 spent)' });
    expect(r.of('cancel-worker').map((c) => c.step)).toEqual(['b']);
  });

  it('dispatches nothing more once the cost reaches it', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })], { budget: { maxCostUsd: 5 } }));
    r.start();
    r.finish('a', null, { costUsd: 5 });
    expect(r.dispatches()).toHaveLength(1);
    expect(r.state.reason).toBe('budget: max-cost-usd $5.00 reached ($5.00 spent)');
  });

  it('counts the cost of failed attempts too', () => {
    const r = new Run(workflow([agent('a', { retries: 3, writes: false })], { budget: { maxCostUsd: 2 } }));
    r.start();
    const d = r.dispatch('a');
    r.send({ type: 'worker.failed', step: 'a', slot: '0', attempt: d.attempt, reason: 'crashed', usage: { costUsd: 2.5 } });
    expect(r.state.budget.costUsd).toBe(2.5);
    expect(r.state.status).toBe('stopped');
    expect(r.dispatches()).toHaveLength(1);
  });

  it('counts an estimated cost (tokens × price, codex) against the budget and remembers it was estimated', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })], { budget: { maxCostUsd: 5 } }));
    r.start();
    const d = r.dispatch('a');
    r.send({ type: 'worker.failed', step: 'a', slot: '0', attempt: d.attempt, reason: 'crashed', usage: { costUsd: 1.8, costEstimated: true } });
    expect(r.state.budget).toMatchObject({ costUsd: 1.8, costEstimated: true });
  });
});

describe('budget and fan-out', () => {
  it('does not dispatch the first items of a fan-out only to cancel them when the rest do not fit', () => {
    const r = new Run(workflow([agent('impl', { forEach: "${{ fromJSON('[1,2,3]') }}" })], { budget: { maxSteps: 2 } }));
    const out = r.start();
    expect(r.dispatches(out)).toEqual([]);
    expect(r.of('cancel-worker', out)).toEqual([]);
    expect(r.state).toMatchObject({ status: 'stopped', reason: 'budget: max-steps 2 would be exceeded by step `impl`' });
    expect(r.state.budget.steps).toBe(0);
  });
});

describe('default budget (a workflow that sets none)', () => {
  it(`stops before the ${DEFAULT_MAX_STEPS + 1}th worker attempt, naming the default`, () => {
    const r = new Run(workflow([agent('a', { retries: DEFAULT_MAX_STEPS + 5, writes: false })]));
    r.start();
    for (let i = 0; i < DEFAULT_MAX_STEPS; i++) r.fail('a');
    expect(r.dispatches()).toHaveLength(DEFAULT_MAX_STEPS);
    expect(r.state).toMatchObject({
      status: 'stopped',
      reason: `budget: max-steps ${DEFAULT_MAX_STEPS} (the default; set \`budget\` in the workflow to change it) would be exceeded by step \`a\``,
    });
  });

  it('stops a run that waits longer than the default max-minutes', () => {
    const r = new Run(workflow([agent('a', { writes: false, timeoutMinutes: 2 * DEFAULT_MAX_MINUTES })]));
    r.start();
    r.pass(DEFAULT_MAX_MINUTES - 1);
    expect(r.state.status).toBe('running');
    r.pass(1);
    expect(r.state).toMatchObject({ status: 'stopped', reason: `budget: max-minutes ${DEFAULT_MAX_MINUTES} (the default; set \`budget\` in the workflow to change it) reached (the run started ${DEFAULT_MAX_MINUTES} minutes ago)` });
  });

  it(`fails a for-each of more than ${DEFAULT_MAX_ITEMS} items before any dispatch, and takes max-items when raised`, () => {
    const items = JSON.stringify(Array.from({ length: DEFAULT_MAX_ITEMS + 1 }, (_, i) => i));
    const many = new Run(workflow([agent('impl', { forEach: `\${{ fromJSON('${items}') }}` })]));
    const out = many.start();
    expect(many.dispatches(out)).toEqual([]);
    expect(many.status('impl')).toBe('failed');
    const raised = new Run(workflow([agent('impl', { forEach: `\${{ fromJSON('${items}') }}`, maxItems: DEFAULT_MAX_ITEMS + 1 })]));
    expect(raised.dispatches(raised.start())).toHaveLength(DEFAULT_MAX_ITEMS + 1);
  });
});
