// Limits keep the work: an attempt a turn, time or cost limit stopped keeps its checkpoint,
// the record says what was kept and how to go on, and `/baton retry <step> --budget/--minutes/
// --turns` raises that limit (within `budget.raise-to`) and continues from the checkpoint.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { agent, run as runStep, workflow } from './builder.ts';
import { Run } from './harness.ts';

const coder = { uses: 'claude-code' as const, model: 'm', timeoutMinutes: 30, maxTurns: 40, env: {} };

function limited(o: Partial<Workflow['budget']> = {}, retries = 0): Workflow {
  return workflow([agent('implement', { retries }), agent('docs')], {
    agents: { coder, reviewer: { uses: 'codex', env: {} } },
    budget: { maxCostUsd: 1, raiseTo: { costUsd: 5, minutes: 90, turns: 100 }, ...o },
  });
}

/** The implement attempt stopped by `limit`, its partial work kept in commit `ckpt`. */
function stopped(r: Run, limit: 'turns' | 'time' | 'cost', costUsd = 0.4): void {
  const d = r.dispatch('implement');
  const ev: Extract<RunEvent, { type: 'worker.failed' }> = {
    type: 'worker.failed', key: `w${d.attempt}`, at: r.now, step: 'implement', slot: '0', attempt: d.attempt,
    reason: limit === 'time' ? 'timed-out' : 'crashed', error: `stopped at the ${limit} limit`, checkpoint: 'ckpt1234567',
    ...(limit !== 'time' && { limit }), kept: ['src/a.ts', 'src/b.ts'], usage: { costUsd },
  };
  r.send(ev);
}

const retry = (r: Run, raise: Record<string, number> | undefined, permission: 'write' | 'read' = 'write') =>
  r.send({ type: 'retry.requested', step: 'implement', actor: 'alice', permission, ...(raise && { raise }) });

describe('an attempt a limit stopped', () => {
  for (const limit of ['turns', 'time', 'cost'] as const) {
    it(`(${limit}) keeps its work: the record says which files, which commit, and the command that resumes`, () => {
      const r = new Run(limited());
      r.start();
      stopped(r, limit);
      expect(r.state.status).toBe('failed');
      const reason = r.step('implement').reason!;
      const flag = { turns: '--turns +20', time: '--minutes +20', cost: '--budget +$2' }[limit];
      expect(reason).toContain(`stopped by its ${{ turns: 'turn', time: 'time', cost: 'cost' }[limit]} limit; kept 2 files (\`src/a.ts\`, \`src/b.ts\`) in commit \`ckpt123\``);
      expect(reason).toContain(`\`/baton retry implement ${flag}\``);
    });
  }

  it('resumes from the checkpoint with the limit raised, the prompt told it continues, and finishes the step', () => {
    const r = new Run(limited());
    r.start();
    stopped(r, 'turns');
    retry(r, { turns: 20, minutes: 10 });
    const again = r.dispatch('implement');
    expect(again).toMatchObject({ attempt: 2, base: 'ckpt1234567', resume: true, stoppedBy: 'turns', timeoutMinutes: 40 });
    expect(again.backend!.maxTurns).toBe(60);
    r.complete('implement');
    r.complete('docs');
    expect(r.state.status).toBe('succeeded');
  });

  it('a cost stop ends the run at its budget; `--budget` raises the run\'s cost limit and the step goes on from its checkpoint', () => {
    const r = new Run(limited({}, 1));
    r.start();
    stopped(r, 'cost', 1.2);
    expect(r.state.status).toBe('stopped');
    expect(r.step('implement').reason).toContain('kept 2 files');
    retry(r, { costUsd: 2 });
    expect(r.state.status).toBe('running');
    expect(r.dispatch('implement')).toMatchObject({ attempt: 2, base: 'ckpt1234567', resume: true, stoppedBy: 'cost' });
    r.complete('implement', null, { costUsd: 0.5 });
    r.complete('docs');
    expect(r.state.status).toBe('succeeded');
  });

  it('a plain retry of a step that failed for another reason still starts from the run branch', () => {
    const r = new Run(limited());
    r.start();
    r.fail('implement', { checkpoint: 'partial' });
    retry(r, undefined);
    expect(r.dispatch('implement')).toMatchObject({ attempt: 2, base: 'base0', resume: false });
  });
});

describe('a raise', () => {
  it('past the workflow\'s cap is refused, naming the cap; nothing is raised or retried', () => {
    const r = new Run(limited({}, 1));
    r.start();
    stopped(r, 'cost', 1.2);
    retry(r, { costUsd: 10 });
    expect(r.of('reply')[0]!.body).toBe("@alice, `--budget +$10` was refused: `--budget +$10` would raise the run's cost limit to $11, past the workflow's cap `budget.raise-to.cost-usd` ($5). Nothing was retried.");
    expect(r.state.status).toBe('stopped');
    expect(r.state.budget.raisedUsd).toBeUndefined();
    retry(r, { turns: 61 });
    expect(r.of('reply')[0]!.body).toContain('past the workflow\'s cap `budget.raise-to.turns` (100)');
    retry(r, { minutes: 61 });
    expect(r.of('reply')[0]!.body).toContain('past the workflow\'s cap `budget.raise-to.minutes` (90)');
    expect(r.dispatches()).toHaveLength(1);
  });

  it('past a policy\'s cap (the day\'s cost cap) is refused, naming it', () => {
    const r = new Run(limited({ perDay: { maxCostUsd: 2 } }));
    r.start();
    stopped(r, 'cost', 1.2);
    retry(r, { costUsd: 2 });
    expect(r.of('reply')[0]!.body).toContain('past the day\'s cap `budget.per-day.max-cost-usd` ($2)');
    expect(r.dispatches()).toHaveLength(1);
  });

  it('of a limit the workflow does not cap is refused: deny by default', () => {
    const r = new Run(limited({ raiseTo: { costUsd: 5 } }));
    r.start();
    stopped(r, 'turns');
    retry(r, { turns: 20 });
    expect(r.of('reply')[0]!.body).toContain('the workflow sets no `budget.raise-to.turns`');
    expect(r.state.status).toBe('failed');
  });

  it('is for role holders only: the role check of a retry comes first', () => {
    const r = new Run(limited());
    r.start();
    stopped(r, 'turns');
    retry(r, { turns: 20 }, 'read');
    expect(r.of('reply')[0]!.body).toContain('retrying a step needs');
    expect(r.step('implement').raised).toBeUndefined();
  });

  it('of minutes on a run step without a time limit, or turns on a run step, is refused with why', () => {
    const r = new Run(workflow([runStep('build')], { budget: { raiseTo: { minutes: 60, turns: 50 } } }));
    r.start();
    r.fail('build');
    r.send({ type: 'retry.requested', step: 'build', actor: 'alice', permission: 'write', raise: { minutes: 5, turns: 5 } });
    const body = r.of('reply')[0]!.body;
    expect(body).toContain('step `build` has no time limit');
    expect(body).toContain('only an agent step has a turn limit');
  });

  it('that is no positive number (a host bug, or a hostile MCP call) is refused', () => {
    const r = new Run(limited());
    r.start();
    stopped(r, 'turns');
    retry(r, { turns: -5 });
    expect(r.of('reply')[0]!.body).toContain('`turns` must be a positive number');
  });
});
