// The Octokit the app runs with: Probot's, whose throttling plugin as `run()` configures it
// only logs a secondary rate limit and gives up — the webhook's work is then lost, since
// GitHub does not redeliver. Here every limit is waited out and retried (a few times).
// plugin-throttling recognises each shape GitHub sends (docs "Rate limits for the REST
// API"): a 403 or 429 whose message names a secondary limit, waiting `retry-after` or, when
// that header is missing, a minute (`fallbackSecondaryRateRetryAfter`); and the primary
// limit (`x-ratelimit-remaining: 0`), waiting until `x-ratelimit-reset`.
import Bottleneck from 'bottleneck';
import { ProbotOctokit } from 'probot';
import { MemoryLedger, RedisLedger, type BudgetLedger, type RedisLike } from './budget-ledger.ts';
import { APP_BUDGET_KEY, BudgetGroup, DEFAULT_WRITE_BUDGET, InstallationDoor, writeBudgetPlugin, type DoorReport, type WriteBudgetOptions } from './write-budget.ts';

export const SECONDARY_LIMIT_RETRIES = 3;
export const PRIMARY_LIMIT_RETRIES = 3;

type LimitHandler = (after: number, request: unknown, octokit: unknown, retryCount: number) => boolean;

/**
 * The pacing @octokit/plugin-throttling (v11) applies per installation, in milliseconds: writes one
 * at a time a second apart, writes that notify people (comments, pull requests, reviews) three
 * seconds apart, searches two. Written down here so that a scaled copy keeps the same shape.
 */
export const GITHUB_PACING_MS = { write: 1000, notifications: 3000, search: 2000, retryAfterBase: 1000 } as const;

export interface BatonOctokitOptions {
  /**
   * 1 (default) is production: the plugins' own pacing and waits. Below 1, every interval and
   * every wait (write spacing, retry-after and its one-minute fallback, the wait for a primary
   * limit's reset, retry backoff) is multiplied by it — time compressed, nothing switched off —
   * so tests and demos take the path production takes, only faster.
   */
  timeScale?: number;
  /**
   * The write budget (write-budget.ts): GitHub's documented secondary limits, for every installation
   * together by default (`scope`), or what BATON_WRITE_BUDGET_* say (app main.ts). Its windows are
   * scaled by `timeScale`.
   */
  writeBudget?: Partial<WriteBudgetOptions>;
  /** Told of each write's wait at the door (the metrics, the bench). */
  onDoor?: (report: DoorReport) => void;
  /** Where the door's own troubles are logged (a shared ledger out of reach, a notice that failed). */
  warn?: (msg: string) => void;
}

/**
 * The throttling plugin's Redis TTL for a limiter's keys (its `timeout`, 2 minutes): how long an
 * installation's pacing state outlives its last write in a shared Redis.
 */
const CLUSTER_KEY_TTL_MS = 120_000;

/**
 * Bottleneck groups shaped like the throttling plugin's own, with every interval scaled; kept in
 * Probot's Redis (REDIS_URL) when it gave the throttle a connection, as the plugin's own groups
 * are, so that replicas space an installation's writes together there too.
 */
function scaledGroups(scale: number, connection: unknown): Record<string, unknown> {
  const ms = (n: number) => Math.max(1, Math.round(n * scale));
  const shared: Bottleneck.ConstructorOptions = connection ? { connection: connection as Bottleneck.IORedisConnection, timeout: CLUSTER_KEY_TTL_MS } : {};
  return {
    global: new Bottleneck.Group({ id: 'baton-global', maxConcurrent: 10, ...shared }),
    auth: new Bottleneck.Group({ id: 'baton-auth', maxConcurrent: 1, ...shared }),
    write: new Bottleneck.Group({ id: 'baton-write', maxConcurrent: 1, minTime: ms(GITHUB_PACING_MS.write), ...shared }),
    notifications: new Bottleneck.Group({ id: 'baton-notifications', maxConcurrent: 1, minTime: ms(GITHUB_PACING_MS.notifications), ...shared }),
    search: new Bottleneck.Group({ id: 'baton-search', maxConcurrent: 1, minTime: ms(GITHUB_PACING_MS.search), ...shared }),
    retryAfterBaseValue: GITHUB_PACING_MS.retryAfterBase * scale,
  };
}

/**
 * The throttle's id for an installation's client: its installation. plugin-throttling keys its
 * queues by this id ("no-id" when absent), and Probot sets it only on clients made by
 * `app.auth(id)` — the client a webhook's handler gets (octokit-auth-probot's "event-octokit")
 * copies the App's own options, id-less: every installation's writes would then wait in one
 * queue a second apart (one across replicas with REDIS_URL), each installation slowing the
 * others. The id is Probot's own (`String(installationId)`), so both kinds of client share a queue.
 */
function throttleIdOf(instance: Record<string, unknown>): { id?: string } {
  const installationId = (instance.auth as { installationId?: unknown } | undefined)?.installationId;
  return installationId === undefined || installationId === null ? {} : { id: String(installationId) };
}

export function batonOctokit(options: BatonOctokitOptions = {}): typeof ProbotOctokit {
  const scale = options.timeScale ?? 1;
  if (!(scale > 0 && scale <= 1)) throw new Error(`timeScale must be in (0, 1], got ${scale}`);
  const onSecondaryRateLimit: LimitHandler = (_after, _request, _octokit, retryCount) => retryCount < SECONDARY_LIMIT_RETRIES;
  const onRateLimit: LimitHandler = (_after, _request, _octokit, retryCount) => retryCount < PRIMARY_LIMIT_RETRIES;
  // Groups are made once per Octokit class (and Redis connection), as the plugin makes its own once
  // per process: every installation's client shares them (keyed by installation), so pacing holds
  // across events. Unscaled, the plugin's own groups serve.
  const groupsByConnection = new Map<unknown, Record<string, unknown>>();
  const groupsFor = (connection: unknown): Record<string, unknown> => {
    if (scale === 1) return {};
    let groups = groupsByConnection.get(connection);
    if (!groups) groupsByConnection.set(connection, (groups = scaledGroups(scale, connection)));
    return groups;
  };
  // The write budget's doors, one per installation, shared by every client of this class as the
  // throttle's groups are, taking from one budget for the whole App unless `scope` says per
  // installation; counted in Redis when Probot connected its throttle there (REDIS_URL).
  const budget: WriteBudgetOptions = { ...DEFAULT_WRITE_BUDGET, ...options.writeBudget };
  const windows = { minuteMs: 60_000 * scale, hourMs: 3_600_000 * scale };
  const memory = new MemoryLedger(windows);
  const warn = options.warn ?? ((msg: string) => console.warn(`baton: ${msg}`));
  const doors = new Map<string, InstallationDoor>();
  // The doors sharing a budget: all of them by default (scope `app`), else one group per installation.
  const groups = new Map<string, BudgetGroup>();
  const registry = {
    doorFor(installation: string, ledger: () => BudgetLedger): InstallationDoor {
      let door = doors.get(installation);
      if (!door) {
        const key = budget.scope === 'app' ? APP_BUDGET_KEY : installation;
        let group = groups.get(key);
        if (!group) groups.set(key, (group = new BudgetGroup(key, ledger(), budget, warn)));
        doors.set(installation, (door = new InstallationDoor(installation, group.ledger, budget, budget.noticeAfterMs * scale, scale, warn, options.onDoor, group)));
      }
      return door;
    },
  };
  const ledgerOf = (o: { throttle?: { connection?: unknown } }): BudgetLedger => {
    const client = (o.throttle?.connection as { client?: RedisLike } | undefined)?.client;
    return client ? new RedisLedger(client, windows) : memory;
  };
  return ProbotOctokit.plugin(toldOnSend, writeBudgetPlugin(registry, ledgerOf) as never).defaults((instance: Record<string, unknown>) => ({
    ...instance,
    throttle: {
      ...(instance.throttle as object | undefined),
      ...throttleIdOf(instance),
      ...groupsFor((instance.throttle as { connection?: unknown } | undefined)?.connection),
      onSecondaryRateLimit,
      onRateLimit,
    },
    ...(scale === 1 ? {} : { retry: { ...(instance.retry as object | undefined), retryAfterBaseValue: GITHUB_PACING_MS.retryAfterBase * scale } }),
  }));
}

/**
 * Honours the `request.onSend` option (git-refs.ts OnSend): called each time the request goes out
 * to GitHub, after its wait in the throttle queue. Octokit reads `request.fetch` per request, and
 * the fetch is only called once the throttle lets the request go — so a fetch that speaks first
 * tells the moment, however many hooks sit between. How claims date themselves (lease.ts).
 */
function toldOnSend(octokit: Pick<InstanceType<typeof ProbotOctokit>, 'hook'>): void {
  octokit.hook.wrap('request', (request, options) => {
    const onSend = (options.request as { onSend?: unknown } | undefined)?.onSend;
    if (typeof onSend !== 'function') return request(options);
    const inner: typeof fetch = options.request?.fetch ?? globalThis.fetch;
    const told: typeof fetch = (input, init) => {
      onSend();
      return inner(input, init);
    };
    // Set on the options themselves: every hook of the chain is bound to the same options object
    // (before-after-hook), so options handed on as a new object would be ignored.
    options.request = { ...options.request, fetch: told };
    return request(options);
  });
}
