/**
 * The emulator's web pages: what a browser posts to github.com outside the REST API (the
 * manifest flow's "Create GitHub App" form). They take form fields, answer redirects or
 * plain text, and have no OpenAPI description to be validated against.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteResult } from './router.ts';

export interface WebRequest {
  method: string;
  path: string;
  /** The `application/x-www-form-urlencoded` body a browser's form sends. */
  form: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export type WebPage = (req: WebRequest) => RouteResult | Promise<RouteResult>;

export class WebPages {
  private readonly pages: { method: string; pattern: RegExp; page: WebPage }[] = [];

  add(method: string, pattern: RegExp, page: WebPage): void {
    this.pages.push({ method: method.toUpperCase(), pattern, page });
  }

  /** The page answering a request, or null when the path is not a page (then it is the API). */
  match(method: string, path: string): WebPage | null {
    return this.pages.find((p) => p.method === method.toUpperCase() && p.pattern.test(path))?.page ?? null;
  }
}

/** A redirect as github.com answers a form post. */
export function redirect(location: string): RouteResult {
  return { status: 302, headers: { location, 'content-type': 'text/html; charset=utf-8' }, raw: Buffer.from(`<html><body>You are being <a href="${location}">redirected</a>.</body></html>`) };
}

/** A page refusing what was posted, with what is wrong in plain words. */
export function refusal(status: number, message: string): RouteResult {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, raw: Buffer.from(`${message}\n`) };
}
