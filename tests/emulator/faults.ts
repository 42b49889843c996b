/**
 * Faults on demand, so that baton's retries, throttling and idempotency are exercised:
 * 5xx answers, secondary rate limits, reads that miss a resource just created
 * (eventual consistency), and dropped, duplicated, delayed or reordered webhook
 * deliveries. A rule fires `times` times (default 1) or, with `probability`, at random
 * from a seeded PRNG so that a failing run can be replayed.
 */
import type { RouteResult } from './http/router.ts';
import { DOCS_URL } from './http/router.ts';

export type ApiFaultKind = 'server-error' | 'secondary-rate-limit' | 'not-found' | 'stale-read';

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
  /** For `server-error`: 500, 502 or 503 (default 502). */
  status?: number;
  /** For `secondary-rate-limit`: seconds in `retry-after` (default 1). */
  retryAfter?: number;
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

  /** A fault answer for this request, or null to serve it normally. */
  before(method: string, route: string, path: string): RouteResult | null {
    const key = `${method} ${route}`;
    if (method === 'GET' && (this.stale.get(path) ?? 0) > 0) {
      this.stale.set(path, this.stale.get(path)! - 1);
      this.injected.push({ kind: 'stale-read', target: `GET ${path}`, at: new Date().toISOString() });
      return { status: 404, body: { message: 'Not Found', documentation_url: DOCS_URL, status: '404' } };
    }
    for (const armed of this.api) {
      const { rule } = armed;
      if (rule.kind === 'stale-read') continue;
      if (rule.route !== undefined && rule.route !== '*' && rule.route !== key) continue;
      if (!this.fires(armed)) continue;
      this.injected.push({ kind: rule.kind, target: key, at: new Date().toISOString() });
      return answer(rule);
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

function answer(rule: ApiFault): RouteResult {
  if (rule.kind === 'secondary-rate-limit') {
    return {
      status: 403,
      headers: { 'retry-after': String(rule.retryAfter ?? 1), 'x-ratelimit-remaining': '4999' },
      body: {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.',
        documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        status: '403',
      },
    };
  }
  if (rule.kind === 'not-found') return { status: 404, body: { message: 'Not Found', documentation_url: DOCS_URL, status: '404' } };
  const status = rule.status ?? 502;
  const message = status === 502 ? 'Server Error' : status === 503 ? 'Service Unavailable' : 'Internal Server Error';
  return { status, body: { message, documentation_url: DOCS_URL, status: String(status) } };
}
