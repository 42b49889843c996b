/**
 * The HTTP front: parses a request, finds its route, authenticates, injects faults,
 * validates the request against the OpenAPI subset, runs the handler, validates the
 * response, logs, answers. Served at the root and under `/api/v3` (GitHub Enterprise
 * Server's prefix, which Probot uses when GHE_HOST is set).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../auth.ts';
import type { Emulator } from '../emulator.ts';
import type { OpenApi, Operation } from '../openapi/validator.ts';
import { DOCS_URL, HttpError, type RouteResult } from './router.ts';
import { githubClock } from '../store.ts';

export interface RequestLogEntry {
  method: string;
  /** The path template that matched (`GET /repos/{owner}/{repo}/issues/{issue_number}`), or the raw path. */
  route: string;
  path: string;
  status: number;
  /** `installation:1`, `github-actions[bot]:acme/widgets`, `user:alice`, `app`, `anonymous`. */
  identity: string;
  fault?: string;
  at: string;
}

/** Special endpoints the emulator serves for itself (git hooks), outside GitHub's API. */
export type InternalHandler = (path: string, body: string) => Promise<RouteResult | null>;

const API_PREFIX = '/api/v3';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, result: RouteResult): void {
  const headers: Record<string, string> = {
    'x-github-request-id': randomUUID(),
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    'x-ratelimit-resource': 'core',
    // GitHub's time of the answer, whole seconds (RFC 9110 "Date"): on the emulator's GitHub clock, like its stamps.
    date: new Date(githubClock.now()).toUTCString(),
    ...result.headers,
  };
  if (result.raw !== undefined) {
    headers['content-length'] = String(result.raw.length);
    res.writeHead(result.status, headers);
    res.end(result.raw);
    return;
  }
  if (result.body === undefined || result.status === 204 || result.status === 304) {
    res.writeHead(result.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(result.body);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(result.status, headers);
  res.end(text);
}

/** Coerces a path or query value to its parameter's schema type; undefined when it cannot. */
function coerce(value: string, schema: Record<string, unknown> | undefined): unknown {
  const type = Array.isArray(schema?.type) ? (schema.type as string[])[0] : schema?.type;
  if (type === 'integer') return /^-?\d+$/.test(value) ? Number(value) : undefined;
  if (type === 'number') return Number.isFinite(Number(value)) ? Number(value) : undefined;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : undefined;
  return value;
}

function checkParams(openapi: OpenApi, op: Operation, params: Record<string, string>, query: URLSearchParams): HttpError | null {
  for (const param of op.parameters) {
    if (param.in === 'path') {
      const raw = params[param.name];
      if (raw === undefined) continue;
      const value = coerce(raw, param.schema);
      // GitHub answers 404 for a path that cannot name a resource (`/issues/abc`).
      if (value === undefined || (param.schema !== undefined && openapi.validate(param.schema, value) !== null)) return new HttpError(404, 'Not Found');
    } else if (param.in === 'query') {
      const raw = query.get(param.name);
      if (raw === null) continue;
      const value = coerce(raw, param.schema);
      if (value === undefined || (param.schema !== undefined && openapi.validate(param.schema, value) !== null)) {
        return new HttpError(422, `Invalid request.\n\n${JSON.stringify(raw)} is not a valid value for the query parameter "${param.name}".`, {
          errors: [{ resource: 'Query', field: param.name, code: 'invalid', value: raw }],
        });
      }
    }
  }
  return null;
}

export function createHandler(emulator: Emulator, openapi: OpenApi, internal: InternalHandler) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://emulator');
    let path = url.pathname;
    // Web pages (a browser's form posts) live on the site, not under the API prefix.
    const page = emulator.pages.match(method, path);
    if (page !== null) {
      const text = await readBody(req);
      try {
        send(res, await page({ method, path, form: new URLSearchParams(text), headers: req.headers }));
      } catch (error) {
        send(res, errorResult(error, emulator));
      }
      return;
    }
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) path = path.slice(API_PREFIX.length) || '/';
    const text = await readBody(req);
    const log: RequestLogEntry = { method, route: path, path, status: 0, identity: 'anonymous', at: new Date().toISOString() };
    let result: RouteResult;
    try {
      const special = path.startsWith('/_emulator/') ? await internal(path, text) : null;
      if (special !== null) {
        send(res, special);
        return;
      }
      result = await serve(emulator, openapi, method, path, url.searchParams, text, req, log);
    } catch (error) {
      result = errorResult(error, emulator);
    }
    log.status = result.status;
    emulator.requestLog.push(log);
    send(res, result);
  };
}

async function serve(
  emulator: Emulator,
  openapi: OpenApi,
  method: string,
  path: string,
  query: URLSearchParams,
  text: string,
  req: IncomingMessage,
  log: RequestLogEntry,
): Promise<RouteResult> {
  const arrivedAt = Date.now();
  let found = emulator.router.match(method, path);
  // Octokit drops the trailing slash of `/contents/` (the root directory): match it with one.
  if (!('route' in found) && !path.endsWith('/')) found = emulator.router.match(method, `${path}/`);
  if (!('route' in found)) {
    if (found.allow.length > 0) return errorResult(new HttpError(404, 'Not Found'), emulator);
    return errorResult(new HttpError(404, 'Not Found'), emulator);
  }
  const { route, params } = found;
  const key = `${route.method} ${route.template}`;
  log.route = key;
  const op = openapi.operations.get(key);
  if (op === undefined) throw new Error(`${key} has no OpenAPI operation`);

  const identity: Identity = emulator.auth.authenticate(req.headers);
  log.identity = identity.label;
  emulator.auth.authorize(identity, route.options, params, method);

  const fault = emulator.faults.before(method, route.template, path, identity.label);
  if (fault !== null) {
    log.fault = emulator.faults.injected.at(-1)?.kind ?? 'fault';
    return fault;
  }
  // GitHub's own limits, counted (secondary-limits.ts): not a fault injected, an answer GitHub gives.
  const limited = emulator.secondaryLimits.before(method, route.template, identity, identity.label);
  if (limited !== null) {
    log.fault = 'secondary-limit';
    return limited;
  }

  // A request that breaks GitHub's description is a bug of its sender: GitHub refuses it, and
  // so does the emulator, and it is recorded as a violation so that the test fails even when
  // the sender took the refusal in stride.
  const malformed = (why: string): void => {
    emulator.violations.push(`malformed request ${key} by ${identity.label}: ${why}`);
  };
  const paramError = checkParams(openapi, op, params, query);
  if (paramError !== null) {
    if (paramError.status !== 404) malformed(paramError.message);
    throw paramError;
  }

  let body: unknown;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      malformed('the body is not JSON');
      throw new HttpError(400, 'Problems parsing JSON');
    }
  }
  const problem = openapi.checkRequestBody(op, body);
  const fieldOf = (e: NonNullable<typeof problem>['errors'][number]) =>
    e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : e.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // What the route checks itself is answered there, as GitHub answers it (RouteOptions.validates).
  const owned = route.options.validates ?? [];
  const left = problem?.errors.filter((e) => e.keyword === 'required' || !owned.includes(fieldOf(e))) ?? [];
  if (problem !== null && left.length > 0) {
    malformed(problem.message);
    throw new HttpError(422, problem.message, {
      documentation_url: op.documentationUrl,
      errors: left.map((e) => ({
        resource: op.operationId.split('/')[0] ?? 'Request',
        field: fieldOf(e),
        code: e.keyword === 'required' ? 'missing_field' : 'invalid',
        message: e.message ?? 'invalid',
      })),
    });
  }

  let result: RouteResult;
  try {
    result = await route.handler({ params, query, body: body ?? {}, auth: identity, emulator, headers: req.headers, method, route: route.template, arrivedAt });
  } catch (error) {
    if (error instanceof HttpError) result = { status: error.status, body: { ...error.body, documentation_url: op.documentationUrl }, headers: error.headers };
    else throw error;
  }

  if (result.raw === undefined) {
    const violation = openapi.checkResponse(op, result.status, result.body);
    if (violation !== null) {
      emulator.violations.push(violation);
      return { status: 500, body: { message: `emulator response violates GitHub's OpenAPI description: ${violation}`, documentation_url: DOCS_URL } };
    }
  }
  emulator.faults.after(method, route.template, result.status, result.body);
  // Done, but the answer is lost on the way (a gateway timeout): the write stays.
  if (result.status < 300) {
    const lost = emulator.faults.lostAnswer(method, route.template);
    if (lost !== null) {
      log.fault = 'lost-answer';
      return lost;
    }
  }
  return result;
}

function errorResult(error: unknown, emulator: Emulator): RouteResult {
  if (error instanceof HttpError) return { status: error.status, body: error.body, headers: error.headers };
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  emulator.violations.push(`unhandled error: ${message}`);
  return { status: 500, body: { message: `emulator error: ${error instanceof Error ? error.message : String(error)}`, documentation_url: DOCS_URL } };
}
