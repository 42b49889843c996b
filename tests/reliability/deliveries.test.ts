// GitHub misbehaving around the app: every webhook twice, deliveries out of order and
// overlapping, 5% of API calls failing (502 or a secondary rate limit), and the app killed
// at random points and restarted with what it missed redelivered. Faults are seeded: a
// failure replays.
import { afterEach, describe, expect, it } from 'vitest';
import type { Harness } from '../app/harness.ts';
import { prng } from '../emulator/faults.ts';
import { expectFlowSucceeded, flowHarness, labelFlow } from './scenario.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('reliability: deliveries and the API', () => {
  it('every webhook delivered twice: the run ends the same, nothing twice', async () => {
    h = await flowHarness();
    h.emu.faults.addWebhook({ kind: 'duplicate', times: Infinity });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(h.emu.faults.injected.length).toBeGreaterThan(10);
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);

  it('deliveries reordered (seeded): the run ends the same, nothing twice', async () => {
    h = await flowHarness();
    h.emu.faults.seed(11);
    h.emu.faults.addWebhook({ kind: 'reorder', probability: 0.5 });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(h.emu.faults.injected.some((f) => f.kind === 'reorder')).toBe(true);
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);

  it.each([7, 23])('deliveries overlapping, every one twice and some reordered (seed %i): the run ends the same, nothing twice', async (seed) => {
    h = await flowHarness();
    // As GitHub delivers: each webhook sent without waiting for the answer to the previous.
    h.emu.webhooks.configure({ overlap: true });
    h.emu.faults.seed(seed);
    h.emu.faults.addWebhook({ kind: 'duplicate', times: Infinity });
    h.emu.faults.addWebhook({ kind: 'reorder', probability: 0.3 });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(h.emu.faults.injected.some((f) => f.kind === 'reorder')).toBe(true);
    expect(h.emu.webhooks.mostInFlight()).toBeGreaterThanOrEqual(2);
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);

  it('5% of API calls fail with a 502 or a secondary rate limit (seeded): retried and waited out, the run ends the same', async () => {
    h = await flowHarness();
    h.emu.faults.seed(5);
    h.emu.faults.add({ kind: 'server-error', route: '*', probability: 0.025, status: 502 });
    h.emu.faults.add({ kind: 'secondary-rate-limit', route: '*', probability: 0.025, retryAfter: 1 });
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(h.emu.faults.injected.length).toBeGreaterThan(0);
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);

  it.each([3, 17])('the app killed twice at random points (seed %i) and restarted: the run ends the same, nothing twice', async (seed) => {
    const random = prng(seed);
    h = await flowHarness();
    // The reference run makes about 60 app-side calls: kill somewhere in them, twice.
    h.killAfter(1 + Math.floor(random() * 30));
    const { number, runId } = await labelFlow(h);
    await h.settle();
    await h.restart();
    h.killAfter(1 + Math.floor(random() * 20));
    await h.settle();
    await h.restart();
    await h.settle();
    await expectFlowSucceeded(h, number, runId);
  }, 60_000);
});
