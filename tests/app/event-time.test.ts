// The App's own time per event, apart from its waits on GitHub (src/app/event-time.ts): the
// arithmetic on requests in flight together, on the real request hook of the metrics, and the
// figures a labelled-issue run leaves at GET /metrics, checked against the harness's own clock.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { unionMs, type EventTime } from '../../src/app/event-time.ts';
import { Metrics } from '../../src/app/metrics.ts';
import { batonOctokit } from '../../src/app/octokit.ts';
import { KeyedQueue } from '../../src/app/queue.ts';
import { startHarness, TEST_TIME_SCALE, type Harness } from './harness.ts';
import { samples } from './prometheus.ts';

/** A GitHub stand-in that holds every request until `together` have arrived, then answers them all `holdMs` later. */
async function heldServer(together: number, holdMs: number) {
  let held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    held.push(res);
    if (held.length < together) return;
    const answer = held;
    held = [];
    setTimeout(() => answer.forEach((r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{}')), holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Keeps the CPU busy for `ms`: the App's own work. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** An Octokit whose requests the metrics time, and the times they report. */
function watched(url: string) {
  const metrics = new Metrics({ processMetrics: false });
  const times: EventTime[] = [];
  metrics.onEventTime = (t) => times.push(t);
  const octokit = new Octokit({ baseUrl: url });
  metrics.watch(octokit, '1');
  return { metrics, octokit, times };
}

const HOLD_MS = 100;
const WORK_MS = 40;

describe('event time: the arithmetic', () => {
  it('counts each instant once, however many requests cover it', () => {
    expect(unionMs([])).toBe(0);
    expect(unionMs([{ start: 0, end: 10 }, { start: 5, end: 15 }, { start: 20, end: 30 }])).toBe(25);
    expect(unionMs([{ start: 20, end: 30 }, { start: 0, end: 100 }, { start: 10, end: 20 }])).toBe(100);
    expect(unionMs([{ start: 0, end: 10 }, { start: 10, end: 20 }])).toBe(20);
  });

  it('counts requests in flight together once, and the App\'s own work apart', async () => {
    const gh = await heldServer(2, HOLD_MS);
    try {
      const { metrics, octokit, times } = watched(gh.url);
      await metrics.timed('issues', async () => {
        await Promise.all([octokit.request('GET /repos/acme/widgets'), octokit.request('GET /repos/acme/widgets/issues/1')]);
        busy(WORK_MS);
      });
      const [t] = times;
      expect(t).toMatchObject({ label: 'issues', requests: 2 });
      // Both waited HOLD_MS side by side: GitHub's share is about HOLD_MS, not twice it (which would
      // leave less than nothing for the work after the answers).
      expect(t!.githubMs).toBeGreaterThanOrEqual(HOLD_MS);
      expect(t!.githubMs).toBeLessThanOrEqual(t!.wallMs - WORK_MS);
      expect(t!.appMs).toBeGreaterThanOrEqual(WORK_MS);
      expect(t!.appMs + t!.githubMs).toBeCloseTo(t!.wallMs, 6);
      expect(t!.wireMs).toBeGreaterThanOrEqual(HOLD_MS);
      expect(t!.wireMs).toBeLessThanOrEqual(t!.githubMs);
    } finally {
      await gh.close();
    }
  });

  it('keeps events under way side by side apart, and times an event that fails', async () => {
    const gh = await heldServer(3, HOLD_MS);
    try {
      const { metrics, octokit, times } = watched(gh.url);
      const one = metrics.timed('issues', () => octokit.request('GET /repos/acme/widgets'));
      const two = metrics.timed('workflow_run', async () => {
        await Promise.all([octokit.request('GET /repos/acme/widgets/actions/runs/1'), octokit.request('GET /repos/acme/widgets/actions/runs/2')]);
        throw new Error('the handler failed');
      });
      await one;
      await expect(two).rejects.toThrow('the handler failed');
      expect(times.map((t) => [t.label, t.requests]).sort()).toEqual([['issues', 1], ['workflow_run', 2]]);
      for (const t of times) expect(t.githubMs).toBeGreaterThanOrEqual(HOLD_MS);
      const text = await metrics.registry.metrics();
      expect(text).toContain('baton_event_github_seconds_count{event="workflow_run"} 1');
      expect(text).toContain('baton_event_app_seconds_count{event="issues"} 1');
    } finally {
      await gh.close();
    }
  });

  it('never fails the event it measures', async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.onEventTime = () => {
      throw new Error('a broken listener');
    };
    await expect(metrics.timed('issues', async () => 'handled')).resolves.toBe('handled');
  });
});

describe('event time: waits are not the App\'s own time', () => {
  /** The App's Octokit as production builds it (its write queue), time compressed; GitHub answers at once. */
  function paced() {
    const metrics = new Metrics({ processMetrics: false });
    const times: EventTime[] = [];
    metrics.onEventTime = (t) => times.push(t);
    const github: typeof fetch = async () => new Response('{}', { status: 201, headers: { 'content-type': 'application/json' } });
    const Octokit = batonOctokit({ timeScale: TEST_TIME_SCALE });
    const octokit = new Octokit({ auth: { token: 'installation-token' }, request: { fetch: github } });
    metrics.watch(octokit, '1');
    const write = (n: number) => octokit.request('POST /repos/{owner}/{repo}/git/refs', { owner: 'acme', repo: 'widgets', ref: `refs/heads/b-${n}`, sha: 'a'.repeat(40) });
    return { metrics, times, write };
  }
  /** Writes a second apart, compressed. */
  const WRITE_MS = 1000 * TEST_TIME_SCALE;

  it('an event whose one write waited behind other runs\' writes: the wait is GitHub\'s pacing, reported apart', async () => {
    const { metrics, times, write } = paced();
    // Other runs' writes, queued first (no event of this test's: not timed).
    const others = Array.from({ length: 40 }, (_, i) => write(i));
    await metrics.timed('issues', () => write(100));
    await Promise.all(others);
    const [t] = times;
    expect(t!.queueMs).toBeGreaterThan(30 * WRITE_MS);
    expect(t!.queueMs).toBeLessThanOrEqual(t!.githubMs);
    // Its own time is small beside the 30-odd writes' wait it sat out (room for a loaded machine).
    expect(t!.appMs).toBeLessThan(10 * WRITE_MS);
    const text = await metrics.registry.metrics();
    expect(text).toContain('baton_write_queue_wait_seconds_count{event="issues"} 1');
  });

  it('an event waiting behind the same run\'s earlier event: the wait is reported apart, not as the App\'s own time', async () => {
    const { metrics, times, write } = paced();
    const runs = new KeyedQueue();
    // The run's earlier event: paced writes, one after another (as a record, a check run, a dispatch).
    const earlier = metrics.timed('workflow_run', () => runs.run('acme/widgets#fix-7-1', async () => {
      for (let i = 0; i < 30; i++) await write(i);
    }));
    const later = metrics.timed('issue_comment', () => runs.run('acme/widgets#fix-7-1', () => write(100)));
    await Promise.all([earlier, later]);
    const t = times.find((e) => e.label === 'issue_comment')!;
    expect(t.runWaitMs).toBeGreaterThan(20 * WRITE_MS);
    expect(t.appMs).toBeLessThan(5 * WRITE_MS);
    expect(t.appMs + t.githubMs + t.runWaitMs).toBeCloseTo(t.wallMs, 6);
    const text = await metrics.registry.metrics();
    expect(text).toContain('baton_run_queue_wait_seconds_count{event="issue_comment"} 1');
  });
});

const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo hi > hi.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('event time: a labelled-issue run', () => {
  it('reports the App\'s time and GitHub\'s per event at /metrics, adding up to the time the delivery\'s work took', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    const scrape = async () => samples(await (await fetch(`http://127.0.0.1:${h!.port}/metrics`)).text());
    // The issue's `opened` delivery is routed too (a workflow may start on it): settled and
    // measured first, so that what follows is the label's delivery alone.
    const alice = h.as('alice');
    const { number } = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Try baton:hello', body: 'Please.' })).data;
    await h.settle();
    const before = await scrape();
    const opened = h.timings.length;
    await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: number, labels: ['baton:hello'] });
    await h.settle();
    await h.app.sweep();
    const after = await scrape();
    const s = new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));

    // One labelled delivery routed, one sweep; each observed once in both histograms.
    for (const event of ['issues', 'sweep']) {
      for (const name of ['baton_event_app_seconds', 'baton_event_github_seconds', 'baton_event_github_wire_seconds']) {
        expect(s.get(`${name}_count{event="${event}"}`), `${name}{event="${event}"}`).toBe(1);
      }
      expect(s.get(`baton_event_github_seconds_sum{event="${event}"}`)).toBeGreaterThan(0);
      expect(s.get(`baton_event_app_seconds_sum{event="${event}"}`)).toBeGreaterThan(0);
    }

    // The label's delivery as the harness clocked it: arrival → its last call answered (the
    // delivery itself is answered first, the work goes on after), and its calls on the wire.
    // (The worker's end, also in this window, makes more calls since its step's commit is read back.)
    const label = h.timings.slice(opened).find((t) => t.event === 'issues')!;
    const worked = Math.max(...label.callSpans.map((c) => c.doneAt)) - label.receivedAt;
    const app = s.get('baton_event_app_seconds_sum{event="issues"}')! * 1000;
    const github = s.get('baton_event_github_seconds_sum{event="issues"}')! * 1000;
    // app + github is the work's wall time: within arrival → last call, short of it by what Probot
    // does before the handler (signature, parsing), past it by what the App does after its last
    // call answers (a few milliseconds of its own time; 100 leaves room on a loaded machine: 50 was
    // passed by 5 ms in a full run).
    expect(app + github).toBeLessThanOrEqual(worked + 100);
    expect(app + github).toBeGreaterThan(0.8 * worked);
    expect(label.answeredAt! - label.receivedAt).toBeLessThan(app + github);
    // The wire share is what the harness's own fetch saw for that delivery.
    const wire = s.get('baton_event_github_wire_seconds_sum{event="issues"}')! * 1000;
    const seen = unionMs(label.callSpans.map((c) => ({ start: c.issuedAt, end: c.doneAt })));
    expect(wire).toBeGreaterThan(0.9 * seen);
    expect(wire).toBeLessThanOrEqual(github);
    // And the per-event list the harness keeps agrees with the metric.
    const routed = h.eventTimes.filter((t) => t.label === 'issues').slice(1);
    expect(routed).toHaveLength(1);
    expect(routed[0]!.appMs + routed[0]!.githubMs).toBeCloseTo(routed[0]!.wallMs, 6);
  });
});
