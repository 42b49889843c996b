// The shared run loop with an in-memory host: saves come before effects, follow-up
// events are fed back, duplicates do nothing.
import { describe, expect, it } from 'vitest';
import type { Command, RunEvent, RunState } from '../../src/engine/index.ts';
import { emptyState } from '../../src/engine/index.ts';
import { drive, type HostPort } from '../../src/hosts/driver.ts';
import type { Workflow } from '../../src/manifest/types.ts';

const wf: Workflow = {
  name: 'two',
  on: { labels: [], commands: ['two'], roles: ['write'], bots: [] },
  inputs: {},
  agents: {},
  budget: {},
  steps: [
    { id: 'a', name: 'a', kind: 'run', run: 'make a', needs: [], retries: 0, writes: true, env: {} },
    { id: 'b', name: 'b', kind: 'run', run: 'make b', needs: ['a'], retries: 0, writes: true, env: {} },
  ],
};

const start: RunEvent = {
  type: 'run.requested',
  key: 'start',
  at: 1_000,
  runId: 'two-1-1',
  workflow: 'two',
  manifestHash: 'h',
  manifestCommit: 'c0',
  inputs: {},
  thread: { kind: 'issue', number: 1 },
  baseBranch: 'main',
  baseSha: 'sha0',
  actor: 'alice',
  permission: 'admin',
};

/** Finishes every worker at once and merges every branch: a host with nothing to wait for. */
class InstantHost implements HostPort {
  log: string[] = [];
  saved: RunState[] = [];
  private n = 0;
  async save(state: RunState): Promise<void> {
    this.saved.push(state);
    this.log.push(`save ${state.status}`);
  }
  async execute(c: Command): Promise<RunEvent[]> {
    this.log.push(c.type);
    const at = 2_000 + ++this.n;
    if (c.type === 'dispatch-worker') {
      return [{ type: 'worker.finished', key: `fin-${c.key}`, at, step: c.step, slot: c.slot, attempt: c.attempt, outputs: null, commit: `${c.step}-commit` }];
    }
    if (c.type === 'merge-step-branch') return [{ type: 'merge.completed', key: `merge-${c.key}`, at, step: c.step, slot: c.slot, attempt: c.attempt, head: `head-${c.step}` }];
    // Every deliverable is there (the hosts' read-backs have tests of their own).
    if (c.type === 'read-back') return [{ type: 'deliverable.read', key: `read-${c.key}`, at, step: c.step, opening: c.opening, seq: c.seq, missing: [] }];
    return [];
  }
}

describe('drive', () => {
  it('runs a workflow to the end by feeding follow-up events back', async () => {
    const host = new InstantHost();
    const { state, applied } = await drive(host, wf, emptyState(), start);
    expect(state.status).toBe('succeeded');
    expect(state.head).toBe('head-b');
    expect(applied.map((e) => e.type)).toEqual(['run.requested', 'worker.finished', 'merge.completed', 'deliverable.read', 'worker.finished', 'merge.completed', 'deliverable.read']);
  });

  it('saves the state before carrying out what it decided', async () => {
    const host = new InstantHost();
    await drive(host, wf, emptyState(), start);
    const firstDispatch = host.log.indexOf('dispatch-worker');
    expect(host.log.slice(0, firstDispatch)).toContain('save running');
    // Every dispatch is preceded by a save of a state in which that job is already running.
    const dispatchSaves = host.saved.filter((s) => s.steps.some((st) => st.jobs.some((j) => j.status === 'running')));
    expect(dispatchSaves.length).toBeGreaterThan(0);
  });

  it('does nothing for a duplicate event', async () => {
    const host = new InstantHost();
    const { state } = await drive(host, wf, emptyState(), start);
    const again = new InstantHost();
    const result = await drive(again, wf, state, start);
    expect(result.state).toBe(state);
    expect(again.log).toEqual([]);
  });
});
