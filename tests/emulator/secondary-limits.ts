/**
 * GitHub's secondary limits on content creation, counted — not injected as faults.ts does — for
 * the App the emulator serves, per the identity the reading `secondaryLimitIdentity` names
 * (readings.ts: per installation, per App, or per the App's `[bot]` account; the docs name none).
 *
 * The numbers, each with its source:
 *  - 80 content-creating requests a minute and 500 an hour: docs "Rate limits for the REST API",
 *    § About secondary rate limits ("In general, no more than 80 content-generating requests per
 *    minute and no more than 500 content-generating requests per hour are allowed").
 *  - Lower limits on some endpoints ("Some endpoints have lower content creation limits", same
 *    section), not published: issue creation, 20 a minute and 150 an hour, as measured in a public
 *    report (cli/cli#4801, comment of 2023-02-15: "20 issues per minute and 150 per hour").
 *
 * Which requests count as content-creating is not published either: every write (anything but GET
 * and HEAD) counts, as baton counts its own (src/app/write-budget.ts `isWrite`); a refused request
 * created nothing and is not counted. The windows slide (a minute and an hour back from the
 * request); GitHub does not say how its own are aligned. People's tokens and a runner's
 * `GITHUB_TOKEN` (`github-actions[bot]`, limited per repository by its own documented rules) are
 * not counted here: a test acts as many people as it needs, and only the App's identity is unknown.
 *
 * Over a limit the answer is GitHub's for content creation (faults.ts `rateLimited`): a 403 "You
 * have exceeded a secondary rate limit and have been temporarily blocked from content creation"
 * (octokit/rest.js#127, johnf/github-issue-importer#16), without `retry-after` by default — the
 * docs' rule is then "wait for at least one minute" — and `x-ratelimit-remaining` above 0 with the
 * hourly `x-ratelimit-reset`, which says nothing about this limit (docs, § Exceeding the rate limit).
 */
import type { Identity } from './auth.ts';
import { rateLimited } from './faults.ts';
import type { RouteResult } from './http/router.ts';
import type { ByHandReadings } from './readings.ts';
import type { Store } from './store.ts';

export interface WindowLimits {
  perMinute: number;
  perHour: number;
}

/** The general limit on content-creating requests (docs, quoted above). */
export const CONTENT_CREATION_LIMITS: WindowLimits = { perMinute: 80, perHour: 500 };

/** Lower limits of single endpoints (`METHOD /template`): issue creation per cli/cli#4801. */
export const ENDPOINT_LIMITS: Readonly<Record<string, WindowLimits>> = {
  'POST /repos/{owner}/{repo}/issues': { perMinute: 20, perHour: 150 },
};

export interface SecondaryLimitOptions {
  /**
   * A millisecond of GitHub's time per millisecond here (1: real time). A test that compresses the
   * App's time (tests/app/harness.ts timeScale) compresses GitHub's windows alike.
   */
  timeScale?: number;
  /** The answer's status (GitHub sends 403 or 429 for a secondary limit; reports show 403 here). */
  status?: 403 | 429;
  /** `until-room`: a `retry-after` of the seconds until the request would fit; `absent` (default): none. */
  retryAfter?: 'absent' | 'until-room';
  /**
   * false: nothing is counted. Only for tests of single routes that write more through one
   * installation in a minute than GitHub allows (their subject is the route's answer); every
   * test of baton's own requests keeps the limits.
   */
  counted?: boolean;
}

/** One refusal, for tests. */
export interface LimitRefusal {
  /** Whose count: `installation:<id>`, `app:<id>`, `account:<login>`. */
  counter: string;
  route: string;
  /** Which limit: `content creation` or the endpoint's. */
  limit: string;
  at: number;
}

export class SecondaryLimits {
  /** Every refusal, in order. */
  readonly refused: LimitRefusal[] = [];
  /** Each counter's requests (performance.now() times), and per endpoint. */
  private readonly counts = new Map<string, number[]>();
  timeScale: number;
  private readonly options: Required<Omit<SecondaryLimitOptions, 'timeScale'>>;

  constructor(
    private readonly store: Store,
    private readonly reading: () => ByHandReadings['secondaryLimitIdentity'],
    options: SecondaryLimitOptions = {},
  ) {
    this.timeScale = options.timeScale ?? 1;
    this.options = { status: options.status ?? 403, retryAfter: options.retryAfter ?? 'absent', counted: options.counted ?? true };
  }

  /** Whose count a request of `identity` is kept in under the current reading; undefined: not counted. */
  counterOf(identity: Identity): string | undefined {
    if (!this.options.counted) return undefined;
    if (identity.kind !== 'installation' || identity.login !== this.store.app.botLogin) return undefined;
    const reading = this.reading();
    if (reading === 'installation') return `installation:${identity.installationId}`;
    if (reading === 'app') return `app:${this.store.appOfLogin(identity.login).id}`;
    return `account:${identity.login}`;
  }

  /** GitHub's refusal when this request is over a limit (it is then not counted); null when it is counted and served. */
  before(method: string, route: string, identity: Identity, who: string): RouteResult | null {
    if (method === 'GET' || method === 'HEAD') return null;
    const counter = this.counterOf(identity);
    if (counter === undefined) return null;
    const now = performance.now();
    const key = `${method} ${route}`;
    const checks: Array<[string, string, WindowLimits]> = [[counter, 'content creation', CONTENT_CREATION_LIMITS]];
    const endpoint = ENDPOINT_LIMITS[key];
    if (endpoint) checks.push([`${counter} ${key}`, key, endpoint]);
    let wait = 0;
    let over: string | undefined;
    for (const [name, limit, limits] of checks) {
      const w = this.untilRoom(this.times(name, now), now, limits);
      if (w > 0 && w >= wait) [wait, over] = [w, limit];
    }
    if (over !== undefined) {
      this.refused.push({ counter, route: key, limit: over, at: now });
      const retryAfter = this.options.retryAfter === 'until-room' ? Math.max(1, Math.ceil(wait / this.timeScale / 1000)) : null;
      return rateLimited({ kind: 'secondary-rate-limit', status: this.options.status, retryAfter, contentCreation: true }, who);
    }
    for (const [name] of checks) this.times(name, now).push(now);
    return null;
  }

  /** The requests counted in `name` within the last hour (older ones dropped). */
  private times(name: string, now: number): number[] {
    const hourMs = 3_600_000 * this.timeScale;
    const kept = (this.counts.get(name) ?? []).filter((t) => t > now - hourMs);
    this.counts.set(name, kept);
    return kept;
  }

  /** Milliseconds until one more request fits both windows (0: now). */
  private untilRoom(times: readonly number[], now: number, limits: WindowLimits): number {
    const minuteMs = 60_000 * this.timeScale;
    const hourMs = 3_600_000 * this.timeScale;
    const inMinute = times.filter((t) => t > now - minuteMs);
    let wait = 0;
    if (times.length >= limits.perHour) wait = Math.max(wait, times[times.length - limits.perHour]! + hourMs - now);
    if (inMinute.length >= limits.perMinute) wait = Math.max(wait, inMinute[inMinute.length - limits.perMinute]! + minuteMs - now);
    return wait;
  }
}
