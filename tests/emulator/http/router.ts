/**
 * Routes keyed by the OpenAPI path templates of GitHub's REST description, so that a
 * route, its validation schemas and its request-log entry all share one name
 * (`POST /repos/{owner}/{repo}/issues`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Identity, Level } from '../auth.ts';
import type { Emulator } from '../emulator.ts';

export const DOCS_URL = 'https://docs.github.com/rest';

export interface RouteOptions {
  /** The installation permission the route needs, e.g. `['issues', 'write']`. */
  permission?: [scope: string, level: Level];
  /**
   * Who may call: `app` needs an app JWT (the `/app` endpoints); `token` (default) needs
   * an installation, Actions or user token, or none for public reads; `none` takes no
   * credentials at all (the manifest flow's code is the credential).
   */
  auth?: 'app' | 'token' | 'none';
  /**
   * Body fields (`output.summary`) the route checks itself and refuses with GitHub's recorded
   * answer (422 "Validation Failed" with `errors[{resource, field, code}]`): the description's
   * limits on them are left to the route, whose answer is GitHub's, and a request over them is
   * a refusal GitHub gives, not a malformed one.
   */
  validates?: string[];
}

export interface RouteContext {
  /** Path parameters, percent-decoded (`ref` may hold slashes: `heads/main`). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body, already validated against the operation's request schema. */
  body: unknown;
  auth: Identity;
  emulator: Emulator;
  headers: IncomingHttpHeaders;
  method: string;
  /** The path template that matched. */
  route: string;
  /** When the request arrived (ms since the epoch): what tells racing requests apart. */
  arrivedAt: number;
}

export interface RouteResult {
  status: number;
  /** JSON body; validated against the operation's response schema for `status`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as is instead of a JSON body (zip downloads, plain-text logs); not validated. */
  raw?: Buffer;
}

export type Handler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;

/** An error answer with GitHub's body shape: `{ message, documentation_url, status }`. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.body = { message, documentation_url: DOCS_URL, status: String(status), ...extra };
    this.headers = headers;
  }
}

export interface FieldError {
  resource?: string;
  field?: string;
  code: 'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom';
  message?: string;
  value?: string | number | string[];
}

/** GitHub's 422: `{ message: 'Validation Failed', errors: [{ resource, field, code }] }`. */
export function validationFailed(errors: FieldError[], message = 'Validation Failed'): HttpError {
  return new HttpError(422, message, { errors });
}

/** 422 with only a message, as GitHub answers for semantic refusals ("Reference already exists"). */
export function unprocessable(message: string): HttpError {
  return new HttpError(422, message);
}

export function notFound(message = 'Not Found'): HttpError {
  return new HttpError(404, message);
}

export interface Route {
  method: string;
  template: string;
  handler: Handler;
  options: RouteOptions;
  regex: RegExp;
  names: string[];
  /** Higher matches first: literal segments beat parameters, single-segment beats multi-segment. */
  rank: number;
}

/** Path parameters that may span several segments (GitHub marks them `x-multi-segment`). */
const MULTI_SEGMENT = new Set(['ref', 'path', 'basehead']);

export class Router {
  readonly routes: Route[] = [];
  private readonly allowed?: ReadonlySet<string>;

  /** `allowed`: the operations that have a schema; registering anything else throws. */
  constructor(allowed?: Iterable<string>) {
    if (allowed !== undefined) this.allowed = new Set(allowed);
  }

  add(method: string, template: string, handler: Handler, options: RouteOptions = {}): void {
    const upper = method.toUpperCase();
    const key = `${upper} ${template}`;
    if (this.allowed !== undefined && !this.allowed.has(key)) {
      throw new Error(`${key} is not in tests/emulator/openapi/operations.ts; add it and run scripts/extract-openapi.ts`);
    }
    if (this.routes.some((r) => r.method === upper && r.template === template)) throw new Error(`${key} registered twice`);
    const names: string[] = [];
    let rank = 0;
    const pattern = template
      .split('/')
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (param === null) {
          rank += 100;
          return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        }
        names.push(param[1]!);
        // May be empty: `/contents/` lists the root directory.
        if (MULTI_SEGMENT.has(param[1]!)) return '(.*)';
        rank += 1;
        return '([^/]+)';
      })
      .join('/');
    this.routes.push({ method: upper, template, handler, options, regex: new RegExp(`^${pattern}$`), names, rank });
    this.routes.sort((a, b) => b.rank - a.rank);
  }

  /** The route for a request path (without `/api/v3`), or the methods the path allows. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | { allow: string[] } {
    const allow: string[] = [];
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (m === null) continue;
      if (route.method !== method.toUpperCase()) {
        allow.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
      return { route, params };
    }
    return { allow };
  }
}
