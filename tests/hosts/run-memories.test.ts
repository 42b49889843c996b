// What the App keeps of runs in process (src/hosts/github/memory.ts): runs going on, at most
// MAX_RUN_MEMORIES of them; nothing of a finished run, its outputs included.
import { describe, expect, it } from 'vitest';
import { emptyState, type RunState } from '../../src/engine/index.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { MAX_RUN_MEMORIES, RunMemories, type RunMemory } from '../../src/hosts/github/memory.ts';

const gh = { owner: 'acme', repo: 'widgets' } as RepoContext;

function memory(runId: string, status: RunState['status']): RunMemory {
  return { state: { ...emptyState(), runId, status }, commentId: 1, body: 'x'.repeat(4000), warm: true, checksKnown: true, checkRuns: new Map([['a@b', 7]]), markers: new Set(['baton:reply k']), gen: 3 };
}

describe('run memories', () => {
  it('keeps a run going and releases it, outputs included, once it has finished', () => {
    const m = new RunMemories();
    m.set('acme', 'widgets', memory('build-1-1', 'running'));
    m.outputs.remember(gh, 'build-1-1', '42', 'f'.repeat(64), '{"summary":"a long output"}');
    m.outputs.remember(gh, 'other-2-1', '43', 'e'.repeat(64), '{"summary":"another run\'s"}');
    expect(m.retained().runs).toBe(1);
    expect(m.retained().bytes).toBeGreaterThan(4000);

    for (const status of ['succeeded', 'failed', 'cancelled'] as const) {
      m.set('acme', 'widgets', memory('build-1-1', 'running'));
      m.set('acme', 'widgets', memory('build-1-1', status));
      expect(m.get('acme', 'widgets', 'build-1-1')).toBeUndefined();
    }
    expect(m.outputs.text(gh, '42')).toBeUndefined();
    expect(m.outputs.idOf(gh, 'build-1-1', 'f'.repeat(64))).toBeUndefined();
    // Another run's outputs stay.
    expect(m.outputs.text(gh, '43')).toBe('{"summary":"another run\'s"}');
    expect(m.retained()).toEqual({ runs: 0, bytes: Buffer.byteLength('{"summary":"another run\'s"}') });
  });

  it('keeps at most MAX_RUN_MEMORIES runs, dropping the one whose last event is oldest', () => {
    const m = new RunMemories();
    for (let i = 0; i < MAX_RUN_MEMORIES; i++) m.set('acme', 'widgets', memory(`r-${i}-1`, 'running'));
    m.set('acme', 'widgets', memory('r-0-1', 'running')); // r-0-1 has an event again
    m.set('acme', 'widgets', memory('r-new-1', 'running'));
    expect(m.retained().runs).toBe(MAX_RUN_MEMORIES);
    expect(m.get('acme', 'widgets', 'r-0-1')).toBeDefined();
    expect(m.get('acme', 'widgets', 'r-1-1')).toBeUndefined();
    expect(m.get('acme', 'widgets', 'r-new-1')).toBeDefined();
  });
});
