// What a delivery costs at GitHub's real pacing: the App built as `npm start` builds it
// (batonOctokit at time scale 1: writes to one installation a second apart, three seconds
// for comments), one run of a 2-step chain on the emulator with the real worker. Beside it,
// the emulator's own latency per call, measured in the same run, so that the App's pacing and
// the emulator's speed can be told apart.
import { median } from '../measure.ts';
import { chainWorkflow, startHarness, type DeliveryTiming } from '../../tests/app/harness.ts';
import { p95 } from './app.ts';
import type { Figure } from './figure.ts';

/** GitHub closes a delivery it has not had an answer to within 10 seconds (docs: "Handling webhook deliveries"). */
export const GITHUB_WEBHOOK_TIMEOUT_MS = 10_000;

interface PacedRun {
  timings: DeliveryTiming[];
  /** Per event that claimed its run: ms in the claim request (its paced turn included) plus any wait on another process. */
  lease: number[];
}

let cachedRun: Promise<PacedRun> | undefined;
const pacedRun = async (): Promise<DeliveryTiming[]> => (await paced()).timings;
const paced = (): Promise<PacedRun> => (cachedRun ??= (async () => {
  const h = await startHarness({
    files: { '.agents/workflows/chain.yml': chainWorkflow(2) },
    agents: Object.fromEntries(['a', 'b'].map((s) => [s, [{ write: { [`${s}.txt`]: `${s}\n` } }]])),
    timeScale: 1,
  });
  const lease: number[] = [];
  h.app.runs.onLease = (r) => lease.push(r.claimMs + r.waitMs);
  try {
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Chain', body: '' })).data;
    await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue.number, labels: ['baton:chain'] });
    await h.settle();
    return { timings: h.timings.filter((t) => t.calls.length), lease };
  } finally {
    await h.close();
  }
})());

export const webhookAckMs: Figure = {
  name: 'webhook_ack_ms',
  description: 'delivery received → answered, p95 over the deliveries that made calls, at real pacing (GitHub gives up at 10 s; the target leaves room for the answer to travel)',
  unit: 'ms',
  // Acknowledge, then work: a tenth of GitHub's timeout, so a slow network or a busy replica never reaches it.
  target: { op: '<', value: GITHUB_WEBHOOK_TIMEOUT_MS / 10 },
  async measure() {
    return Math.round(p95((await pacedRun()).map((t) => (t.answeredAt ?? Infinity) - t.receivedAt)));
  },
};

export const deliveryWorkMsP95: Figure = {
  name: 'delivery_work_ms_p95',
  description: 'delivery received → its last API call answered, p95, at real pacing',
  unit: 'ms',
  async measure() {
    return Math.round(p95((await pacedRun()).map((t) => Math.max(...t.callSpans.map((c) => c.doneAt)) - t.receivedAt)));
  },
};

export const emulatorCallMsP50: Figure = {
  name: 'emulator_call_ms_p50',
  description: "the emulator's own latency per API call (issued → answered), median, in the same paced run",
  unit: 'ms',
  async measure() {
    return Math.round(median((await pacedRun()).flatMap((t) => t.callSpans.map((c) => c.doneAt - c.issuedAt))) * 10) / 10;
  },
};

export const leaseOverheadMsP95: Figure = {
  name: 'lease_overhead_ms_p95',
  description: 'per event that changed a run: time in its claim (hosts/github/lease.ts) and in waits on other processes\' claims, p95, at real pacing, one App process',
  unit: 'ms',
  // No target: a claim is one write, and its time is nearly all its turn in the installation's write
  // queue (a second apart, behind this event's and other events' writes), which traffic decides.
  async measure() {
    return Math.round(p95((await paced()).lease));
  },
};
