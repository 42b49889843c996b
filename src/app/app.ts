// The Probot app: each handler unpacks its webhook into a plain event and hands it to a
// module that decides (handlers/). All run state lives on GitHub; what the process keeps
// (RunService) only saves requests and serialises work per run.
import type { ApplicationFunction, ApplicationFunctionOptions, Context, Probot } from 'probot';
import type { GitHubClient } from '../hosts/github/client.ts';
import { deliveryKey, repoContext, type AppConfig, type RepositoryPayload } from './context.ts';
import { ROUTES, routeFor } from './routes.ts';
import { RunService, type LeaseOptions } from './runs.ts';
import { DEFAULT_LEASE_TTL_MS } from '../hosts/github/lease.ts';
import { resolveStateSecret } from './state-key.ts';
import { Metrics } from './metrics.ts';
import { Sweeper, sweepIntervalFromEnv } from './sweeper.ts';
import { registerTriggerLabels } from './handlers/trigger-labels.ts';
import { inLane, laneOfEvent } from './write-lanes.ts';
import { DeferredEvents, isRateLimited } from './deferred-events.ts';

export interface BatonAppOptions extends Partial<AppConfig> {
  /** Called with the run service (tests wait on `idle()`), the sweeper and the metrics once the app is loaded. */
  onReady?: (runs: RunService, sweeper: Sweeper, metrics: Metrics) => void;
  /** Milliseconds between sweeps of open runs (default: BATON_SWEEP_INTERVAL seconds, else 2 minutes); 0: no timer. */
  sweepIntervalMs?: number;
  /** The App's private key, when Probot was given it directly (not through the environment): signs the state. */
  privateKey?: string;
  /** Claims across App processes (runs.ts); default from BATON_LEASE_TTL (seconds), else 5 minutes. */
  lease?: Partial<LeaseOptions>;
  /**
   * Told when a delivery's work ended (it is acknowledged before): tests redeliver what failed, as an
   * operator would. `deferred`: GitHub's rate limits stopped it; the next sweep applies it again.
   */
  onWorkDone?: (deliveryId: string, outcome: 'handled' | 'failed' | 'deferred') => void;
}

/** The claim time-to-live from BATON_LEASE_TTL and grace period from BATON_CLAIM_GRACE (seconds), when set. */
function leaseFromEnv(ttl: string | undefined, grace: string | undefined): Partial<LeaseOptions> {
  const out: Partial<LeaseOptions> = {};
  if (ttl !== undefined && ttl !== '') {
    const seconds = Number(ttl);
    if (!Number.isFinite(seconds) || seconds < 30) throw new Error(`BATON_LEASE_TTL must be a number of seconds ≥ 30, got ${JSON.stringify(ttl)}`);
    out.ttlMs = seconds * 1000;
  }
  if (grace !== undefined && grace !== '') {
    const seconds = Number(grace);
    if (!Number.isFinite(seconds) || seconds * 1000 < (out.ttlMs ?? DEFAULT_LEASE_TTL_MS)) throw new Error(`BATON_CLAIM_GRACE must be a number of seconds no shorter than the claim time-to-live (BATON_LEASE_TTL, default ${DEFAULT_LEASE_TTL_MS / 1000}), got ${JSON.stringify(grace)}`);
    out.graceMs = seconds * 1000;
  }
  return out;
}

/** A yes/no setting: `true`/`1`/`yes` or `false`/`0`/`no`/unset. */
export function flagFromEnv(name: string, value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(v)) return false;
  if (['true', '1', 'yes'].includes(v)) return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** The metrics' installation label of a delivery: its installation id, or `app` for App-level events. */
function installationLabel(payload: unknown): string {
  const id = (payload as { installation?: { id?: number } }).installation?.id;
  return id === undefined ? 'app' : String(id);
}

/** Events handled outside the route table (installation logging, trigger labels). */
const INSTALL_EVENTS = ['installation', 'installation_repositories'];

interface Identity {
  login: string;
  id: number;
}

export function batonApp(options: BatonAppOptions = {}): ApplicationFunction {
  return async (app: Probot, probotOptions?: ApplicationFunctionOptions) => {
    const config: AppConfig = {
      workerWorkflow: options.workerWorkflow ?? process.env.BATON_WORKER_WORKFLOW ?? 'baton-worker.yml',
      now: options.now ?? Date.now,
      stateSecret: resolveStateSecret(options),
      manifests: registerTriggerLabels(app),
      keepBranches: options.keepBranches ?? flagFromEnv('BATON_KEEP_BRANCHES', process.env.BATON_KEEP_BRANCHES),
      ...(options.trackingIssueComments ? { trackingIssueComments: options.trackingIssueComments } : {}),
    };
    const runs = new RunService(config.now, { ...leaseFromEnv(process.env.BATON_LEASE_TTL, process.env.BATON_CLAIM_GRACE), ...options.lease });

    // Prometheus metrics at GET /metrics on Probot's port (metrics.ts; docs/operations.md).
    const metrics = new Metrics();
    probotOptions?.addHandler(metrics.handler(process.env.BATON_METRICS_TOKEN || undefined));
    const auth = async (installationId?: number) => {
      const octokit = await app.auth(installationId);
      metrics.watch(octokit, installationId === undefined ? 'app' : String(installationId));
      return octokit;
    };
    // The App's own Octokit fetches every installation token: counted before the first event.
    await auth();

    // Who baton is on this GitHub: only comments by this login carry trusted state.
    let identity: Promise<Identity> | undefined;
    const who = (): Promise<Identity> => {
      identity ??= auth()
        .then((octokit) => octokit.request('GET /app'))
        .then((res) => ({ login: `${res.data!.slug}[bot]`, id: Number(res.data!.id) }));
      identity.catch(() => (identity = undefined));
      return identity;
    };
    // Deadlines pass with no event: a timer sweeps the open runs found on GitHub (sweeper.ts).
    const sweeper = new Sweeper({ auth }, runs, async (octokit, repository) => repoContext(octokit, repository, (await who()).login, config), config.now, app.log);
    sweeper.onReport = (report) => metrics.swept(report);
    runs.onLease = (report) => metrics.leased(report);
    sweeper.timed = (event, work) => metrics.timed(event, work);
    sweeper.start(options.sweepIntervalMs ?? sweepIntervalFromEnv(process.env.BATON_SWEEP_INTERVAL));
    options.onReady?.(runs, sweeper, metrics);

    // Work GitHub's rate limits stopped after every retry: applied again by the next sweep (deferred-events.ts).
    const deferred = new DeferredEvents();

    /**
     * One delivery's work, in its lane of the write budget (write-lanes.ts), timed as one event
     * (the App's own time apart from its waits on GitHub: event-time.ts). A rate limit that
     * outlasted the retries defers it; any other failure is logged for redelivery.
     */
    const work = async (name: string, payload: { action?: unknown; repository?: RepositoryPayload }, id: string, octokit: GitHubClient, log: Context['log']): Promise<void> => {
      const route = routeFor(name, payload);
      if (!route) return;
      const { lane, cls } = laneOfEvent(name, payload, id);
      try {
        await inLane(lane, cls, async () => {
          const ourAppId = name.startsWith('check_') ? (await who()).id : null;
          const repository = payload.repository;
          if (!repository) throw new Error(`the ${name} event ${id} names no repository`);
          const gh = repoContext(octokit, repository, (await who()).login, config);
          await metrics.timed(name, () => route(runs, gh, payload, deliveryKey(id), { log, ourAppId, workflowRunAsChecks: false }));
        });
      } catch (err) {
        if (isRateLimited(err) && deferred.add(id, name, payload)) {
          metrics.delivery(name, 'deferred');
          log.warn(`delivery ${id} (${name}) met GitHub's rate limit after every retry (${(err as Error).message}); it is kept and applied again by the next sweep of open runs`);
          options.onWorkDone?.(id, 'deferred');
          return;
        }
        metrics.delivery(name, 'failed');
        log.error(
          { err, delivery: id },
          `delivery ${id} (${name}) failed after it was acknowledged: ${(err as Error).message}. Once the cause is fixed, redeliver it from the App's settings (Advanced → Recent Deliveries); a delivery applied twice counts once`,
        );
        options.onWorkDone?.(id, 'failed');
        return;
      }
      metrics.delivery(name, 'handled');
      options.onWorkDone?.(id, 'handled');
    };

    // Each sweep first applies again what rate limits deferred, with a fresh installation client.
    sweeper.beforeSweep = async () => {
      for (const e of deferred.take()) {
        const installation = (e.payload as { installation?: { id?: number } }).installation?.id;
        await runs.inBackground(async () => work(e.name, e.payload as never, e.id, (await auth(installation)) as unknown as GitHubClient, app.log as never));
      }
    };

    // Every event baton acts on goes through the route table the Actions-only mode shares.
    // The delivery is answered at once and worked on after (GitHub gives up on an answer after
    // 10 s, and an event's paced writes take longer): work lost to a crash is found again from
    // GitHub by the sweep, or redelivered by an operator (docs/operations.md).
    app.on(Object.keys(ROUTES) as never, async (context: Context) => {
      const route = routeFor(context.name, context.payload as { action?: unknown });
      if (!route) return metrics.delivery(context.name, 'ignored');
      // Counted here too: Probot may run this handler before the onAny below has watched the Octokit.
      metrics.watch(context.octokit as never, installationLabel(context.payload));
      void runs.inBackground(() => work(context.name, context.payload as never, context.id, context.octokit as unknown as GitHubClient, context.log));
    });

    // Every delivery's Octokit is counted; deliveries the route table does not take are counted
    // here (GitHub sends every event app.yml subscribes to; installation events have handlers of their own).
    app.onAny(async (event) => {
      // Probot hands every handler its Context (its webhooks transform), though onAny is typed with the raw event.
      const context = event as unknown as Context;
      metrics.watch(context.octokit as never, installationLabel(context.payload));
      const action = (context.payload as { action?: unknown }).action;
      const routed = Object.hasOwn(ROUTES, context.name) || (typeof action === 'string' && Object.hasOwn(ROUTES, `${context.name}.${action}`));
      if (!routed) metrics.delivery(context.name, INSTALL_EVENTS.includes(context.name) ? 'handled' : 'ignored');
    });

    app.on('installation', async (context) => {
      // Nothing to set up: baton keeps no state of its own. Logged for operators.
      context.log.info(`installation ${context.payload.installation.id} ${context.payload.action} on ${(context.payload.installation.account as { login?: string } | null)?.login ?? '?'}`);
    });
  };
}
