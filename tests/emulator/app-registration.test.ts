// GitHub's side of the manifest flow (app-registration.ts): the "new App" form registers an
// App and redirects with a temporary code; the code is exchanged once, within an hour, for
// credentials that work: the App's JWTs are taken, it is installed, its webhooks are signed
// with its secret.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODE_TTL_MS } from './app-registration.ts';
import { startEmulator, type Emulator } from './emulator.ts';
import { signAppJwt as appJwt } from './app-jwt.ts';

const MANIFEST = {
  name: 'Octo Helper',
  url: 'https://example.org/octo',
  description: 'helps',
  public: false,
  redirect_url: 'http://127.0.0.1:9/probot/setup',
  hook_attributes: { url: 'http://127.0.0.1:9/hooks' },
  default_permissions: { issues: 'write', metadata: 'read' },
  default_events: ['issues'],
};

interface Credentials {
  id: number;
  slug: string;
  html_url: string;
  pem: string;
  webhook_secret: string;
  client_id: string;
  client_secret: string;
  permissions: Record<string, string>;
  events: string[];
}

let emu: Emulator;
beforeEach(async () => {
  emu = await startEmulator();
});
afterEach(async () => {
  await emu.close();
});

/** Posts the form as a browser does; answers the redirect's status and location (or the page's text). */
async function submit(fields: Record<string, string>, path = '/settings/apps/new'): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(`${emu.webUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

async function codeFor(manifest: object = MANIFEST, state?: string, path?: string): Promise<string> {
  const r = await submit({ manifest: JSON.stringify(manifest), ...(state === undefined ? {} : { state }) }, path);
  expect(r.status, r.text).toBe(302);
  return new URL(r.location!).searchParams.get('code')!;
}

function convert(code: string): Promise<Response> {
  return fetch(`${emu.apiUrl}/api/v3/app-manifests/${code}/conversions`, { method: 'POST' });
}

describe('emulator: registering a GitHub App from a manifest', () => {
  it('redirects to redirect_url with a code (and the state), exchanged without credentials for the App and its secrets', async () => {
    const r = await submit({ manifest: JSON.stringify(MANIFEST), state: 'abc123' });
    expect(r.status).toBe(302);
    const back = new URL(r.location!);
    expect(`${back.origin}${back.pathname}`).toBe(MANIFEST.redirect_url);
    expect(back.searchParams.get('state')).toBe('abc123');
    const res = await convert(back.searchParams.get('code')!);
    expect(res.status).toBe(201);
    const app = (await res.json()) as Credentials;
    expect(app).toMatchObject({ slug: 'octo-helper', html_url: `${emu.webUrl}/apps/octo-helper`, permissions: MANIFEST.default_permissions, events: MANIFEST.default_events });
    expect(app.pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(app.webhook_secret).not.toBe('');
    expect(app.client_secret).not.toBe('');
    emu.assertNoViolations();
  });

  it('exchanges a code once: a used or unknown code is 404', async () => {
    const code = await codeFor();
    expect((await convert(code)).status).toBe(201);
    const again = await convert(code);
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ message: 'Not Found' });
    expect((await convert('0123456789abcdef')).status).toBe(404);
  });

  it('lets a code expire an hour after the App was registered', async () => {
    let now = Date.now();
    emu.registrations.clock = () => now;
    const fresh = await codeFor();
    const stale = await codeFor();
    now += CODE_TTL_MS + 1000;
    expect((await convert(stale)).status).toBe(404);
    now -= 2000;
    expect((await convert(fresh)).status).toBe(201);
  });

  it('refuses a manifest GitHub cannot register, saying what is wrong', async () => {
    expect(await submit({})).toMatchObject({ status: 422, text: expect.stringContaining('no manifest field') });
    expect(await submit({ manifest: '{' })).toMatchObject({ status: 422, text: expect.stringContaining('not JSON') });
    const { url: _url, ...noUrl } = MANIFEST;
    expect(await submit({ manifest: JSON.stringify(noUrl) })).toMatchObject({ status: 422, text: expect.stringContaining('no url') });
    expect(await submit({ manifest: JSON.stringify({ ...MANIFEST, hook_attributes: {} }) })).toMatchObject({ status: 422, text: expect.stringContaining('hook_attributes has no url') });
    expect(await submit({ manifest: JSON.stringify({ ...MANIFEST, default_permissions: { issues: 'all' } }) })).toMatchObject({ status: 422, text: expect.stringContaining('default_permissions.issues') });
  });

  it('makes the App real: its JWT is taken, it is installed on repositories, its webhooks are signed with its secret', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const hooks: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    try {
      const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
      const app = (await (await convert(await codeFor({ ...MANIFEST, hook_attributes: { url: hookUrl } }, undefined, '/organizations/acme/settings/apps/new'))).json()) as Credentials;
      const asApp = new Octokit({ baseUrl: emu.apiUrl, auth: appJwt(app.id, app.pem) });
      expect((await asApp.rest.apps.getAuthenticated()).data).toMatchObject({ id: app.id, slug: 'octo-helper', owner: { login: 'acme' } });
      // Signed with the default App's id or another key: refused.
      const other = new Octokit({ baseUrl: emu.apiUrl, auth: appJwt(1, app.pem), log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} } });
      await expect(other.rest.apps.getAuthenticated()).rejects.toMatchObject({ status: 401 });

      await emu.createRepo('acme', 'widgets');
      const installation = (await asApp.rest.apps.getRepoInstallation({ owner: 'acme', repo: 'widgets' })).data;
      expect(installation).toMatchObject({ app_id: app.id, app_slug: 'octo-helper', permissions: MANIFEST.default_permissions });
      const token = (await asApp.rest.apps.createInstallationAccessToken({ installation_id: installation.id })).data.token;
      const bot = new Octokit({ baseUrl: emu.apiUrl, auth: token });
      const issue = (await bot.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'from the new App' })).data;
      expect(issue.user?.login).toBe('octo-helper[bot]');

      await emu.webhooks.idle();
      const delivery = received.find((d) => d.headers['x-github-event'] === 'issues')!;
      expect(delivery.headers['x-hub-signature-256']).toBe(`sha256=${createHmac('sha256', app.webhook_secret).update(delivery.body).digest('hex')}`);
      expect(delivery.headers['x-github-hook-installation-target-id']).toBe(String(app.id));
      emu.assertNoViolations();
    } finally {
      await new Promise<void>((resolve) => hooks.close(() => resolve()));
    }
  });
});
