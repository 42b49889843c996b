/**
 * Faults on demand, so that baton's retries, throttling and idempotency are exercised:
 * 5xx answers, secondary rate limits, reads that miss a resource just created
 * (eventual consistency), and dropped, duplicated, delayed or reordered webhook
 * deliveries. A rule fires `times` times (default 1) or, with `probability`, at random
 * from a seeded PRNG so that a failing run can be replayed.
 */
import type { RouteResult } from './http/router.ts';
import { DOCS_URL } from './http/router.ts';

/**
 * `ref-update-failed`: 422 "Reference update failed" without writing — GitHub's answer to a ref
 * write that is sometimes given intermittently with valid data (github/rest-api-description#4887).
 * `lost-answer`: the request is carried out, then answered 502 — a gateway timeout does not undo
 * a write, so a client that retries meets its own result ("Reference already exists").
 */
export type ApiFaultKind = 'server-error' | 'secondary-rate-limit' | 'primary-rate-limit' | 'not-found' | 'stale-read' | 'ref-update-failed' | 'lost-answer';

export interface ApiFault {
  kind: ApiFaultKind;
  /**
   * `METHOD /template` (`POST /repos/{owner}/{repo}/issues`) or `*` for every route.
   * For `stale-read` it names the create: the next `reads` GETs of the created
   * resource's URL answer 404.
   */
  route?: string;
  /** How many times the rule fires; `Infinity` for always. Ignored with `probability`. */
  times?: number;
  /** Fire at random with this probability (seeded) instead of a fixed count. */
  probability?: number;
  /**
   * For `server-error`: 500, 502 or 503 (default 502). For the rate limits: 403 (default)
   * or 429 — GitHub answers a limit with either.
   */
  status?: number;
  /**
   * For `secondary-rate-limit`: seconds in `retry-after` (default 1); `null` sends no
   * `retry-after` at all, and the client must then wait at least one minute.
   */
  retryAfter?: number | null;
  /** For `secondary-rate-limit`: the "temporarily blocked from content creation" message. */
  contentCreation?: boolean;
  /** For `primary-rate-limit`: seconds until `x-ratelimit-reset` (default 1). */
  resetIn?: number;
  /** For `stale-read`: how many reads miss (default 1). */
  reads?: number;
}

export type WebhookFaultKind = 'drop' | 'duplicate' | 'delay' | 'reorder';

export interface WebhookFault {
  kind: WebhookFaultKind;
  /** `issues`, or `issues.labeled`; all events when absent. */
  event?: string;
  times?: number;
  probability?: number;
  /** For `delay`: milliseconds (default 200). */
  delayMs?: number;
}

export interface FaultOptions {
  seed?: number;
  api?: ApiFault[];
  webhooks?: WebhookFault[];
}

export interface InjectedFault {
  kind: ApiFaultKind | WebhookFaultKind;
  target: string;
  at: string;
}

/** mulberry32: tiny, fast, good enough to make random faults reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Armed<T> {
  rule: T;
  left: number;
}

export interface WebhookPlan {
  drop: boolean;
  copies: number;
  delayMs: number;
  reorder: boolean;
}

export class Faults {
  /** Every fault that fired, in order: tests assert on it. */
  readonly injected: InjectedFault[] = [];
  private readonly api: Armed<ApiFault>[] = [];
  private readonly webhooks: Armed<WebhookFault>[] = [];
  private readonly stale = new Map<string, number>();
  private random: () => number;

  constructor(options: FaultOptions = {}) {
    this.random = prng(options.seed ?? 1);
    for (const rule of options.api ?? []) this.add(rule);
    for (const rule of options.webhooks ?? []) this.addWebhook(rule);
  }

  seed(seed: number): void {
    this.random = prng(seed);
  }

  add(rule: ApiFault): void {
    this.api.push({ rule, left: rule.times ?? 1 });
  }

  addWebhook(rule: WebhookFault): void {
    this.webhooks.push({ rule, left: rule.times ?? 1 });
  }

  clear(): void {
    this.api.length = 0;
    this.webhooks.length = 0;
    this.stale.clear();
  }

  private fires<T extends { probability?: number }>(armed: Armed<T>): boolean {
    if (armed.rule.probability !== undefined) return this.random() < armed.rule.probability;
    if (armed.left <= 0) return false;
    armed.left -= 1;
    return true;
  }

  /** A fault answer for this request (`who`: the request log's identity), or null to serve it normally. */
  before(method: string, route: string, path: string, who = 'anonymous'): RouteResult | null {
    const key = `${method} ${route}`;
    if (method === 'GET' && (this.stale.get(path) ?? 0) > 0) {
      this.stale.set(path, this.stale.get(path)! - 1);
      this.injected.push({ kind: 'stale-read', target: `GET ${path}`, at: new Date().toISOString() });
      return { status: 404, body: { message: 'Not Found', documentation_url: DOCS_URL, status: '404' } };
    }
    for (const armed of this.api) {
      const { rule } = armed;
      if (rule.kind === 'stale-read' || rule.kind === 'lost-answer') continue;
      if (rule.route !== undefined && rule.route !== '*' && rule.route !== key) continue;
      if (!this.fires(armed)) continue;
      this.injected.push({ kind: rule.kind, target: key, at: new Date().toISOString() });
      return answer(rule, who);
    }
    return null;
  }

  /** After a successful create: arm stale reads of the new resource's URL. */
  after(method: string, route: string, status: number, body: unknown): void {
    if (status !== 201 || body === null || typeof body !== 'object') return;
    const url = (body as { url?: unknown }).url;
    if (typeof url !== 'string') return;
    const key = `${method} ${route}`;
    for (const armed of this.api) {
      const { rule } = armed;
      if (rule.kind !== 'stale-read' || (rule.route !== undefined && rule.route !== '*' && rule.route !== key)) continue;
      if (!this.fires(armed)) continue;
      const path = new URL(url).pathname.replace(/^\/api\/v3/, '');
      this.stale.set(path, rule.reads ?? 1);
    }
  }

  /** After the request was carried out: a 502 in place of its answer (`lost-answer`), or null to send the answer. */
  lostAnswer(method: string, route: string): RouteResult | null {
    const key = `${method} ${route}`;
    for (const armed of this.api) {
      const { rule } = armed;
      if (rule.kind !== 'lost-answer' || (rule.route !== undefined && rule.route !== '*' && rule.route !== key)) continue;
      if (!this.fires(armed)) continue;
      this.injected.push({ kind: rule.kind, target: key, at: new Date().toISOString() });
      return answer({ ...rule, kind: 'server-error', status: rule.status ?? 502 }, 'anonymous');
    }
    return null;
  }

  /** What to do with one webhook delivery. */
  webhook(event: string, action: string | undefined): WebhookPlan {
    const plan: WebhookPlan = { drop: false, copies: 1, delayMs: 0, reorder: false };
    for (const armed of this.webhooks) {
      const { rule } = armed;
      if (rule.event !== undefined && rule.event !== event && rule.event !== `${event}.${action}`) continue;
      if (!this.fires(armed)) continue;
      this.injected.push({ kind: rule.kind, target: action === undefined ? event : `${event}.${action}`, at: new Date().toISOString() });
      if (rule.kind === 'drop') plan.drop = true;
      if (rule.kind === 'duplicate') plan.copies += 1;
      if (rule.kind === 'delay') plan.delayMs += rule.delayMs ?? 200;
      if (rule.kind === 'reorder') plan.reorder = true;
    }
    return plan;
  }
}

const REQUEST_ID = 'If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.';

/**
 * GitHub's rate-limit answers, per docs "Rate limits for the REST API" (§ Exceeding the
 * rate limit): a secondary limit is a 403 or a 429 whose message says so; `retry-after`
 * may be missing (then wait at least one minute); `x-ratelimit-remaining` stays above 0.
 * The primary limit is a 403 or 429 with `x-ratelimit-remaining: 0` and the reset time in
 * `x-ratelimit-reset`. Messages as GitHub sends them (apache/devlake issue #1322,
 * app-sre/github-mirror PR #62; "API rate limit exceeded for installation ID …":
 * upptime/upptime issue #786, bobheadxi/deployments issue #67).
 */
export function rateLimited(rule: ApiFault, who: string): RouteResult {
  const status = rule.status ?? 403;
  const inSeconds = (n: number) => String(Math.floor(Date.now() / 1000) + n);
  if (rule.kind === 'primary-rate-limit') {
    const installation = /^installation:(\d+)/.exec(who)?.[1];
    const user = who.startsWith('user:') ? 'user ID 1' : `installation ID ${installation ?? 1}`;
    return {
      status,
      headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': inSeconds(rule.resetIn ?? 1), 'x-ratelimit-resource': 'core' },
      body: {
        message: `API rate limit exceeded for ${user}. ${REQUEST_ID}`,
        documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        status: String(status),
      },
    };
  }
  const retryAfter = rule.retryAfter === undefined ? 1 : rule.retryAfter;
  return {
    status,
    headers: {
      ...(retryAfter === null ? {} : { 'retry-after': String(retryAfter) }),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-used': '1',
      // The hourly window's reset, not the end of this limit: it says nothing about when to retry.
      'x-ratelimit-reset': inSeconds(3600),
      'x-ratelimit-resource': 'core',
    },
    body: {
      message: rule.contentCreation
        ? 'You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.'
        : `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. ${REQUEST_ID}`,
      documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      status: String(status),
    },
  };
}

function answer(rule: ApiFault, who: string): RouteResult {
  if (rule.kind === 'secondary-rate-limit' || rule.kind === 'primary-rate-limit') return rateLimited(rule, who);
  if (rule.kind === 'ref-update-failed') return { status: 422, body: { message: 'Reference update failed', documentation_url: 'https://docs.github.com/rest/git/refs#create-a-reference', status: '422' } };
  if (rule.kind === 'not-found') return { status: 404, body: { message: 'Not Found', documentation_url: DOCS_URL, status: '404' } };
  const status = rule.status ?? 502;
  const message = status === 502 ? 'Server Error' : status === 503 ? 'Service Unavailable' : 'Internal Server Error';
  return { status, body: { message, documentation_url: DOCS_URL, status: String(status) } };
}
