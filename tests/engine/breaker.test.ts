// The fallback agent and its circuit breaker, driven by worker events alone: infrastructure
// failures of an agent's backend (credentials, quota, network, the CLI) set it aside for its
// fallback during a cooldown; failures of the work never do.
import { describe, expect, it } from 'vitest';
import { BREAKER_COOLDOWN_MS } from '../../src/engine/breaker.ts';
import type { InfrastructureCause } from '../../src/engine/events.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { agent, review, workflow } from './builder.ts';
import { Run, T0 } from './harness.ts';

const agents = {
  coder: { uses: 'claude-code' as const, env: {}, fallback: 'backup' },
  backup: { uses: 'codex' as const, env: {} },
  reviewer: { uses: 'codex' as const, env: {} },
};

/** The latest attempt of `step` failed; with a cause, before its backend could work. */
function failed(r: Run, step: string, infrastructure?: InfrastructureCause, error = 'boom'): void {
  const d = r.dispatch(step);
  r.send({ type: 'worker.failed', step, slot: d.slot, attempt: d.attempt, reason: 'crashed', error, checkpoint: null, ...(infrastructure && { infrastructure }) });
}

describe('fallback agent and circuit breaker', () => {
  it('after two infrastructure failures the next attempt runs the fallback, and the run completes on it', () => {
    const r = new Run(workflow([agent('a', { writes: false })], { agents }));
    r.start();
    expect(r.dispatch('a')).toMatchObject({ attempt: 1, agent: 'coder', backend: { uses: 'claude-code' } });
    expect(r.dispatch('a').fallbackFor).toBeUndefined();
    failed(r, 'a', 'authentication');
    // One failure is not yet "repeated": the agent is tried again, and no retry is used up (retries: 0).
    expect(r.dispatch('a')).toMatchObject({ attempt: 2, agent: 'coder' });
    expect(r.state.breakers?.coder).toMatchObject({ status: 'closed', failures: 1, cause: 'authentication' });
    failed(r, 'a', 'authentication');
    expect(r.dispatch('a')).toMatchObject({ attempt: 3, agent: 'backup', backend: { uses: 'codex' }, fallbackFor: 'coder' });
    expect(r.state.breakers?.coder).toMatchObject({ status: 'open', failures: 2, openedAt: T0, until: T0 + BREAKER_COOLDOWN_MS });
    expect(r.step('a').jobs[0]!.fallback).toBe('backup');
    r.finish('a', { ok: true });
    expect(r.state.status).toBe('succeeded');
    // The fallback working says nothing about the agent it stands in for.
    expect(r.state.breakers?.coder?.status).toBe('open');
  });

  it('keeps later steps on the fallback during the cooldown, tries the agent again once after it, and closes on success', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false }), agent('c', { writes: false }), agent('d', { writes: false })], { agents }));
    r.start();
    failed(r, 'a', 'quota');
    failed(r, 'a', 'quota');
    r.finish('a', {});
    expect(r.dispatch('b')).toMatchObject({ agent: 'backup', fallbackFor: 'coder' });
    r.now += BREAKER_COOLDOWN_MS - 60_000;
    r.finish('b', {});
    expect(r.dispatch('c')).toMatchObject({ agent: 'backup' });
    r.now += 60_000;
    r.finish('c', {});
    // Cooldown over: step d tries the agent itself (half-open).
    expect(r.dispatch('d')).toMatchObject({ agent: 'coder' });
    expect(r.dispatch('d').fallbackFor).toBeUndefined();
    expect(r.state.breakers?.coder).toMatchObject({ status: 'half-open', probe: { step: 'd', slot: '0', attempt: 1 } });
    r.finish('d', {});
    expect(r.state.breakers?.coder).toMatchObject({ status: 'closed', failures: 0, closedAt: r.now });
    expect(r.state.status).toBe('succeeded');
  });

  it('opens again when the try after the cooldown fails on infrastructure', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false })], { agents }));
    r.start();
    failed(r, 'a', 'network');
    failed(r, 'a', 'network');
    r.now += BREAKER_COOLDOWN_MS;
    r.finish('a', {});
    expect(r.dispatch('b')).toMatchObject({ attempt: 1, agent: 'coder' });
    failed(r, 'b', 'network');
    expect(r.state.breakers?.coder).toMatchObject({ status: 'open', openedAt: r.now, until: r.now + BREAKER_COOLDOWN_MS });
    expect(r.dispatch('b')).toMatchObject({ attempt: 2, agent: 'backup', fallbackFor: 'coder' });
  });

  it('never counts failures of the work: invalid output, timeouts and crashes mid-work leave the agent in place', () => {
    const r = new Run(workflow([agent('a', { writes: false, retries: 4, timeoutMinutes: 5, outputs: { type: 'object', required: ['x'] } })], { agents }));
    r.start();
    failed(r, 'a', undefined, 'no valid result after 3 prompts');
    r.finish('a', { y: 1 }); // outputs do not match the schema
    r.pass(6); // the attempt runs out of time
    failed(r, 'a', undefined, 'killed');
    expect(r.dispatches().map((c) => c.agent)).toEqual(['coder', 'coder', 'coder', 'coder', 'coder']);
    expect(r.state.breakers).toBeUndefined();
    expect(r.step('a').jobs[0]!.failures).toBe(4);
  });

  it('a work failure between two infrastructure failures does not reset the count', () => {
    const r = new Run(workflow([agent('a', { writes: false, retries: 2 })], { agents }));
    r.start();
    failed(r, 'a', 'authentication');
    failed(r, 'a', undefined, 'the agent gave no valid result');
    failed(r, 'a', 'authentication');
    expect(r.state.breakers?.coder).toMatchObject({ status: 'open', failures: 2 });
    expect(r.dispatch('a')).toMatchObject({ agent: 'backup' });
  });

  it('without a fallback, an open breaker changes nothing but the record: same agent, same retries', () => {
    const alone = { coder: { uses: 'claude-code' as const, env: {} }, reviewer: { uses: 'codex' as const, env: {} } };
    const r = new Run(workflow([agent('a', { writes: false, retries: 2 })], { agents: alone }));
    r.start();
    failed(r, 'a', 'authentication');
    failed(r, 'a', 'authentication');
    expect(r.state.breakers?.coder?.status).toBe('open');
    expect(r.dispatch('a')).toMatchObject({ attempt: 3, agent: 'coder' });
    expect(r.dispatch('a').fallbackFor).toBeUndefined();
    failed(r, 'a', 'authentication');
    expect(r.state.status).toBe('failed');
    expect(r.dispatches()).toHaveLength(3);
  });

  it('once the agent is set aside with every fallback resting too, failures use up retries again', () => {
    const chain = { ...agents, backup: { uses: 'codex' as const, env: {}, fallback: 'coder' } };
    // (a cycle the validator refuses; the engine still ends the chain instead of looping)
    const r = new Run(workflow([agent('a', { writes: false, retries: 1 })], { agents: chain }));
    r.start();
    for (let i = 0; i < 4; i++) failed(r, 'a', 'authentication');
    expect(r.state.breakers?.coder?.status).toBe('open');
    expect(r.state.breakers?.backup?.status).toBe('open');
    expect(r.state.status).toBe('running');
    failed(r, 'a', 'authentication');
    failed(r, 'a', 'authentication');
    expect(r.state.status).toBe('failed');
    expect(r.dispatches()).toHaveLength(6);
  });

  it('an agent that fakes a 401 on every attempt gets a bounded number of free attempts, however long it waits', () => {
    // A hijacked agent can make its CLI fail with "status 401" (write it to the CLI's stderr and
    // kill it): that attempt does not use up a retry while its fallback stands in. The bound:
    // two to open the breaker, then one try per cooldown, and every try is followed by an
    // attempt of the fallback, which counts.
    const retries = 3;
    const r = new Run(workflow([agent('a', { writes: false, retries })], { agents }));
    r.start();
    const byAgent: Record<string, number> = {};
    for (let i = 0; i < 100 && r.state.status === 'running'; i++) {
      const d = r.dispatch('a');
      byAgent[d.agent!] = (byAgent[d.agent!] ?? 0) + 1;
      // The worst case: each attempt fails after a full cooldown, so the agent is tried every time it may be;
    // the fallback fakes it too.
      r.now += BREAKER_COOLDOWN_MS;
      failed(r, 'a', 'authentication');
    }
    expect(r.state.status).toBe('failed');
    expect(byAgent.backup).toBe(retries + 1);
    expect(byAgent.coder).toBeLessThanOrEqual(2 + retries);
  });

  it('a try after the cooldown that times out lets the next attempt try again', () => {
    const r = new Run(workflow([agent('a', { writes: false }), agent('b', { writes: false, retries: 1, timeoutMinutes: 5 })], { agents }));
    r.start();
    failed(r, 'a', 'authentication');
    failed(r, 'a', 'authentication');
    r.now += BREAKER_COOLDOWN_MS;
    r.finish('a', {});
    expect(r.dispatch('b')).toMatchObject({ agent: 'coder' });
    r.pass(6);
    expect(r.dispatch('b')).toMatchObject({ attempt: 2, agent: 'coder' });
    expect(r.state.breakers?.coder).toMatchObject({ status: 'half-open', probe: { step: 'b', attempt: 2 } });
  });

  it('a review step falls back too', () => {
    const withReviewer = { ...agents, reviewer: { uses: 'codex' as const, env: {}, fallback: 'backup' } };
    const r = new Run(workflow([agent('a'), review('rev')], { agents: withReviewer }));
    r.start();
    r.complete('a', {});
    expect(r.dispatch('rev')).toMatchObject({ kind: 'review', agent: 'reviewer' });
    failed(r, 'rev', 'cli-missing');
    failed(r, 'rev', 'cli-missing');
    expect(r.dispatch('rev')).toMatchObject({ kind: 'review', agent: 'backup', fallbackFor: 'reviewer' });
  });
});

describe('breaker state keyed by agent name', () => {
  it('works for agents named like Object.prototype members', () => {
    // As the loader makes them: own keys (JSON.parse and Object.fromEntries never set a prototype).
    const named = JSON.parse('{"__proto__": {"uses": "claude-code", "env": {}, "fallback": "constructor"}, "constructor": {"uses": "codex", "env": {}}}') as Workflow['agents'];
    const wf = workflow([agent('a', { writes: false, agent: '__proto__' })], { agents: named });
    const r = new Run(wf);
    r.start();
    expect(r.dispatch('a').agent).toBe('__proto__');
    failed(r, 'a', 'network');
    failed(r, 'a', 'network');
    expect(r.dispatch('a')).toMatchObject({ agent: 'constructor', fallbackFor: '__proto__' });
    expect(Object.hasOwn(r.state.breakers!, '__proto__')).toBe(true);
  });
});
