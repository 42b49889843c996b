import { describe, expect, it } from 'vitest';
import {
  InvalidStateError,
  ManifestChangedError,
  UnknownStateVersionError,
  assertManifestUnchanged,
  decodeCompact,
  decodeState,
  encodeCompact,
  encodeState,
  replay,
} from '../../src/engine/index.ts';
import { agent, review, workflow } from './builder.ts';
import { Run } from './harness.ts';

function sampleRun(): Run {
  const r = new Run(workflow([agent('plan', { writes: false }), agent('impl', { forEach: '${{ steps.plan.outputs }}' }), review('rev', { fix: 'impl' })]));
  r.start();
  r.finish('plan', ['x', 'y']);
  r.complete('impl', 'X', { slot: '0' });
  r.complete('impl', 'Y', { slot: '1' });
  r.finish('rev', { approved: false, summary: 'no', comments: [] });
  return r;
}

describe('replay', () => {
  it('reproduces the live state and commands from the events', () => {
    const r = sampleRun();
    const replayed = replay(r.workflow, r.events, 'hash-1');
    expect(replayed.state).toEqual(r.state);
    expect(replayed.commands).toEqual(r.all);
  });

  it('refuses to replay a run against a changed manifest', () => {
    const r = sampleRun();
    expect(() => replay(r.workflow, r.events, 'hash-2')).toThrow(ManifestChangedError);
    expect(() => replay(r.workflow, r.events, 'hash-2')).toThrow(/changed since it started/);
    expect(() => assertManifestUnchanged(r.state, 'hash-2')).toThrow(ManifestChangedError);
    expect(() => assertManifestUnchanged(r.state, 'hash-1')).not.toThrow();
  });
});

describe('state codec', () => {
  it('round-trips the JSON and the compact form', () => {
    const r = sampleRun();
    expect(decodeState(encodeState(r.state))).toEqual(r.state);
    const compact = encodeCompact(r.state);
    expect(compact).toMatch(/^z1:[A-Za-z0-9+/=]+$/);
    expect(compact.length).toBeLessThan(encodeState(r.state).length);
    expect(decodeCompact(compact)).toEqual(r.state);
  });

  it('a decoded state drives the run on exactly like the original', () => {
    const r = sampleRun();
    const copy = new Run(r.workflow);
    copy.state = decodeCompact(encodeCompact(r.state));
    const event = { type: 'time.passed', key: 'later', at: r.now + 1 } as const;
    r.send(event);
    copy.send(event);
    expect(copy.state).toEqual(r.state);
  });

  it('refuses an unknown version with a clear error', () => {
    const text = encodeState({ ...sampleRun().state, version: 2 as never });
    expect(() => decodeState(text)).toThrow(UnknownStateVersionError);
    expect(() => decodeState(text)).toThrow('run state version 2 is not supported (this baton reads version 1)');
  });

  it('refuses damaged input', () => {
    expect(() => decodeState('{')).toThrow(InvalidStateError);
    expect(() => decodeState('{"version":1}')).toThrow('field `runId` is missing');
    expect(() => decodeCompact('zz:abc')).toThrow(InvalidStateError);
    expect(() => decodeCompact('z1:bm90IGRlZmxhdGU=')).toThrow(InvalidStateError);
  });
});
