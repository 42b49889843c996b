// Stopping for a deploy: accepted deliveries (answered before their work) are finished first,
// within the drain time; what is still running then is counted, not waited for forever.
import { describe, expect, it } from 'vitest';
import { drain, drainTimeoutFromEnv } from '../../src/app/drain.ts';
import { RunService } from '../../src/app/runs.ts';

describe('draining accepted work on SIGTERM', () => {
  it('waits for accepted work to finish', async () => {
    const runs = new RunService();
    let finished = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    void runs.inBackground(async () => {
      await gate;
      finished = true;
    });
    expect(runs.busy).toBe(1);
    const drained = drain(runs, 10_000);
    release();
    expect(await drained).toBe(0);
    expect(finished).toBe(true);
  });

  it('gives up after the drain time and says how much was left', async () => {
    const runs = new RunService();
    void runs.inBackground(() => new Promise<void>(() => undefined));
    expect(await drain(runs, 20)).toBe(1);
  });

  it('reads BATON_DRAIN_TIMEOUT in seconds and refuses nonsense', () => {
    expect(drainTimeoutFromEnv(undefined)).toBe(25_000);
    expect(drainTimeoutFromEnv('5')).toBe(5000);
    expect(() => drainTimeoutFromEnv('soon')).toThrow(/BATON_DRAIN_TIMEOUT/);
  });
});
