// The App's Prometheus metrics, served at GET /metrics on Probot's port (prom-client's text
// format). One registry per App instance, so several Apps in one process (tests) never mix.
// What is counted comes from the places every replica sees: deliveries as the route table
// handles them, GitHub requests and rate limits from each Octokit's response hook (a step
// dispatch is a 2xx workflow dispatch), runs by state and sweep times from each sweep, and
// each event's time split into the App's own and GitHub's (event-time.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProbotOctokit } from 'probot';
import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { requestStarted, timeEvent, type EventTime } from './event-time.ts';
import type { SweepReport } from './sweeper.ts';
import type { LeaseReport } from './runs.ts';

/** What the metrics need of an Octokit: its request hooks. */
type Hookable = Pick<InstanceType<typeof ProbotOctokit>, 'hook'>;

const DISPATCH = /\/actions\/workflows\/[^/]+\/dispatches$/;

export class Metrics {
  readonly registry = new Registry();
  private readonly deliveries = new Counter({ name: 'baton_deliveries_total', help: 'Webhook deliveries the App handled, by event and outcome (handled, ignored: no route for the action, failed: the handler threw, deferred: GitHub rate-limited it past every retry, kept for the next sweep)', labelNames: ['event', 'outcome'], registers: [this.registry] });
  private readonly requests = new Counter({ name: 'baton_github_requests_total', help: 'GitHub API requests by installation ("app" for the App itself), method and status class; installation token fetches, made inside the auth layer, are not counted', labelNames: ['installation', 'method', 'status'], registers: [this.registry] });
  private readonly remaining = new Gauge({ name: 'baton_github_rate_limit_remaining', help: 'x-ratelimit-remaining of the last GitHub answer, by installation and resource', labelNames: ['installation', 'resource'], registers: [this.registry] });
  private readonly dispatched = new Counter({ name: 'baton_steps_dispatched_total', help: 'Worker jobs dispatched (workflow dispatches GitHub accepted)', registers: [this.registry] });
  private readonly runs = new Gauge({ name: 'baton_runs', help: 'Runs found open on GitHub by the last sweep, by state', labelNames: ['state'], registers: [this.registry] });
  private readonly sweepSeconds = new Histogram({ name: 'baton_sweep_duration_seconds', help: 'Time one sweep of every installation took', buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300], registers: [this.registry] });
  private readonly claims = new Counter({ name: 'baton_lease_claims_total', help: 'Claims on runs (one per event that changed a run; hosts/github/lease.ts), by outcome: won, lost (another App process claimed first: wait, reload, apply again), taken_over (a claim whose record never came)', labelNames: ['outcome'], registers: [this.registry] });
  private readonly leaseWaits = new Histogram({ name: 'baton_lease_wait_seconds', help: "Time an event waited for another App process's record after losing a claim", buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 600], registers: [this.registry] });
  // Why the wait is split from the work: at GitHub's pacing a delivery spends seconds in the throttle,
  // which says nothing about how much CPU the App needs per event (what decides how many replicas).
  private readonly appSeconds = new Histogram({ name: 'baton_event_app_seconds', help: "The App's own time per event (webhook or sweep): wall time minus baton_event_github_seconds and baton_run_queue_wait_seconds; also holds its waits behind other work on the event loop", labelNames: ['event'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [this.registry] });
  private readonly runWaitSeconds = new Histogram({ name: 'baton_run_queue_wait_seconds', help: "Time per event (webhook or sweep) spent waiting behind earlier events of the same run (one writer per run), outside requests of its own; not in baton_event_app_seconds", labelNames: ['event'], buckets: [0.001, 0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [this.registry] });
  private readonly writeQueueSeconds = new Histogram({ name: 'baton_write_queue_wait_seconds', help: "The part of baton_event_github_seconds with a request waiting in the throttle queue before it first went out (GitHub's pacing: writes a second apart per installation, behind every run's writes)", labelNames: ['event'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [this.registry] });
  private readonly githubSeconds = new Histogram({ name: 'baton_event_github_seconds', help: 'Time per event (webhook or sweep) spent waiting on GitHub: the union of its API requests from issue to answer, so requests in flight together count once; includes waits in the throttle queue for GitHub pacing, retries and their back-off, installation token fetches and reading the answers', labelNames: ['event'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [this.registry] });
  private readonly wireSeconds = new Histogram({ name: 'baton_event_github_wire_seconds', help: 'The part of baton_event_github_seconds with a request on the wire: sent, the headers of its answer not yet in (the rest is throttle queue, retry back-off, token fetches and reading answers)', labelNames: ['event'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [this.registry] });
  private readonly sweepFailures = new Counter({ name: 'baton_sweep_failures_total', help: 'Runs, repositories or installations a sweep could not look at (retried by the next)', registers: [this.registry] });

  /** Told of every event's time as it is observed (the test harness, the bench). */
  onEventTime: ((time: EventTime) => void) | undefined;

  /** Octokits already counted: Probot hands out the App's own (JWT) Octokit again on every auth(). */
  private readonly watched = new WeakSet<object>();

  constructor(o: { processMetrics?: boolean } = {}) {
    // Memory, CPU, event-loop lag, open handles: what an operator checks first.
    if (o.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  delivery(event: string, outcome: 'handled' | 'ignored' | 'failed' | 'deferred'): void {
    this.deliveries.inc({ event, outcome });
  }

  /** Counts every request `octokit` makes from now on, for `installation` (an id, or "app"). */
  watch(octokit: Hookable, installation: string): void {
    if (this.watched.has(octokit)) return;
    this.watched.add(octokit);
    const seen = (status: number, headers: Record<string, unknown> | undefined, options: { method?: string; url?: string }) => {
      this.requests.inc({ installation, method: options.method ?? 'GET', status: `${Math.floor(status / 100)}xx` });
      const left = Number(headers?.['x-ratelimit-remaining']);
      if (Number.isFinite(left)) this.remaining.set({ installation, resource: String(headers?.['x-ratelimit-resource'] ?? 'core') }, left);
      if (status < 300 && options.method === 'POST' && DISPATCH.test((options.url ?? '').split('?')[0]!)) this.dispatched.inc();
    };
    // One wrap, registered after the throttling and retry plugins' own and so run outside them:
    // it sees each request's final answer, and times it for the event that issued it (event-time.ts).
    octokit.hook.wrap('request', async (request, options) => {
      const timer = requestStarted();
      // Octokit reads `request.fetch` per request: this request's own fetch times its time on the wire.
      if (timer) options.request = { ...options.request, fetch: timer.fetch(options.request?.fetch ?? globalThis.fetch) };
      try {
        const response = await request(options);
        timer?.done();
        seen(response.status, response.headers, options);
        return response;
      } catch (error) {
        timer?.done();
        const e = error as { status?: number; response?: { headers?: Record<string, unknown> } };
        seen(e.status ?? 0, e.response?.headers, options);
        throw error;
      }
    });
  }

  /**
   * Runs one event's `work` (`event`: the webhook's name, or `sweep`), and records how much of
   * its time was the App's own and how much it spent waiting on GitHub.
   */
  timed<T>(event: string, work: () => Promise<T>): Promise<T> {
    return timeEvent(event, work, (time) => {
      this.appSeconds.observe({ event }, time.appMs / 1000);
      this.githubSeconds.observe({ event }, time.githubMs / 1000);
      this.wireSeconds.observe({ event }, time.wireMs / 1000);
      this.writeQueueSeconds.observe({ event }, time.queueMs / 1000);
      this.runWaitSeconds.observe({ event }, time.runWaitMs / 1000);
      this.onEventTime?.(time);
    });
  }

  /** One event's claim, or one wait on another process's claim (runs.ts onLease). */
  leased(report: LeaseReport): void {
    if (report.lost) {
      this.claims.inc({ outcome: 'lost' }, report.lost);
      this.leaseWaits.observe(report.waitMs / 1000);
    } else this.claims.inc({ outcome: 'won' });
    if (report.takenOver) this.claims.inc({ outcome: 'taken_over' }, report.takenOver);
  }

  swept(report: SweepReport): void {
    this.sweepSeconds.observe(report.durationMs / 1000);
    if (report.failed) this.sweepFailures.inc(report.failed);
    this.runs.reset();
    for (const [state, n] of Object.entries(report.states)) this.runs.set({ state }, n);
  }

  /**
   * Probot handler for GET /metrics. With `token` set, the scrape must send it as a bearer
   * token (the App's port also takes GitHub's webhooks, so it is often public).
   */
  handler(token: string | undefined): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
    return async (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return false;
      if (token && !bearerMatches(req.headers.authorization, token)) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('metrics need the bearer token set in BATON_METRICS_TOKEN\n');
        return true;
      }
      res.writeHead(200, { 'content-type': this.registry.contentType }).end(await this.registry.metrics());
      return true;
    };
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether an Authorization header carries `token` as its bearer token, compared in constant
 * time: `!==` stops at the first differing character, so its timing tells a scraper how much
 * of a guess was right. Both sides are hashed first so the compare sees equal lengths and the
 * token's length does not leak either.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.*)$/s.exec(header ?? '');
  return timingSafeEqual(digest(m ? m[1]! : ''), digest(token)) && m !== null;
}
