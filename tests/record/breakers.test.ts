// The status comment says plainly when an agent is set aside for its fallback, why, until
// when, and when it works again (the engine's circuit breaker, engine/breaker.ts).
import { describe, expect, it } from 'vitest';
import { BREAKER_COOLDOWN_MS } from '../../src/engine/breaker.ts';
import type { InfrastructureCause } from '../../src/engine/events.ts';
import { renderRecord } from '../../src/record/render.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { agent, workflow } from '../engine/builder.ts';
import { Run } from '../engine/harness.ts';

function failed(r: Run, step: string, infrastructure: InfrastructureCause): void {
  const d = r.dispatch(step);
  r.send({ type: 'worker.failed', step, slot: d.slot, attempt: d.attempt, reason: 'crashed', error: 'boom', checkpoint: null, infrastructure });
}

describe('status comment: agents set aside for their fallback', () => {
  it('names the agent, the cause, the fallback and the end of the cooldown, then says when it is back', () => {
    const wf = workflow([agent('a', { writes: false }), agent('b', { writes: false })], {
      agents: { coder: { uses: 'claude-code', env: {}, fallback: 'backup' }, backup: { uses: 'codex', env: {} } },
    });
    const r = new Run(wf);
    r.start();
    expect(renderRecord(r.state, wf)).not.toContain('failed before any work');
    failed(r, 'a', 'authentication');
    failed(r, 'a', 'authentication');
    let body = renderRecord(r.state, wf);
    expect(body).toContain('**Agents whose backend failed before any work:**\n- `coder` (claude-code) failed twice on authentication; using `backup` (codex) as its fallback until 12:10 UTC');
    // The attempt that runs on the fallback says so in its row.
    expect(body).toMatch(/\| 🔄 \| a \| running \| 3 \(backup, fallback\) \|/);
    // The state block carries the breaker, so the next event continues from it.
    const block = readStateBlock(body);
    expect(block.ok && block.state.breakers?.coder).toMatchObject({ status: 'open', cause: 'authentication' });

    r.now += BREAKER_COOLDOWN_MS;
    r.pass(0);
    expect(renderRecord(r.state, wf)).toContain('- `coder` (claude-code) failed twice on authentication; its cooldown ended at 12:10 UTC: the next attempt tries it again');
    r.finish('a', {});
    expect(r.dispatch('b').agent).toBe('coder');
    expect(renderRecord(r.state, wf)).toContain('- `coder` (claude-code) failed on authentication earlier; its cooldown is over and an attempt is trying it again');
    r.finish('b', {});
    body = renderRecord(r.state, wf);
    expect(body).toContain('- `coder` (claude-code) works again since 12:10 UTC (it had failed on authentication)');
  });

  it('without a fallback, says the attempts go on with the same agent', () => {
    const wf = workflow([agent('a', { writes: false, retries: 3 })]);
    const r = new Run(wf);
    r.start();
    failed(r, 'a', 'quota');
    failed(r, 'a', 'quota');
    expect(renderRecord(r.state, wf)).toContain(
      '- `coder` (claude-code) failed twice on quota or rate limits; set aside until 12:10 UTC, but it has no `fallback`, so its attempts go on and may fail the same way',
    );
  });
});
