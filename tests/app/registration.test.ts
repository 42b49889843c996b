// Probot's own registration flow, as a user runs it: the App (dist/app.js, built into a temp
// folder as the installed package has it) started with no APP_ID where app.yml and
// package.json are, in development mode; its page /probot posts app.yml's manifest to
// GitHub (the emulator), GitHub redirects back to /probot/setup with a code, the App exchanges
// the code for its credentials and writes them to .env. Restarted from that .env, the App is
// the registered App: it takes deliveries signed with the new secret and acts on them.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES, optionsFor } from '../../scripts/build.ts';
import { freePort } from '../../scripts/demo/stack.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';
import { withActions, type ActionsRunner } from '../emulator/actions/index.ts';
import { batonActionMap } from '../emulator/actions/baton-action.ts';
import { fakeAgentRunnerEnv, initWorkerWorkflow, PROJECT_ROOT, steering } from './harness.ts';
import { signAppJwt as appJwt } from '../emulator/app-jwt.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;

interface AppYml {
  name: string;
  default_permissions: Record<string, string>;
  default_events: string[];
}

let folder: string;
let emu: Emulator;
let runner: ActionsRunner;
let appPort: number;
let app: ChildProcess | undefined;
let log = '';

/** What a browser gets: status, location and body, redirects not followed. */
async function browse(url: string, init: RequestInit = {}): Promise<{ status: number; location: string | null; body: string }> {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

/** `node dist/app.js` in the folder, as a user starts it there: no APP_ID unless .env has one. */
async function startApp(): Promise<void> {
  log = '';
  app = spawn(process.execPath, [join(folder, 'dist/app.js')], {
    cwd: folder,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'development',
      NO_SMEE_SETUP: 'true',
      GHE_HOST: `127.0.0.1:${emu.port}`,
      GHE_PROTOCOL: 'http',
      HOST: '127.0.0.1',
      PORT: String(appPort),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  app.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  app.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  // Wait on the server answering, not on a sleep.
  for (let i = 0; i < 400; i++) {
    if (app.exitCode !== null) throw new Error(`the App exited with ${app.exitCode}:\n${log}`);
    if (await fetch(`http://127.0.0.1:${appPort}/ping`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the App did not answer /ping:\n${log}`);
}

async function stopApp(): Promise<void> {
  const child = app;
  app = undefined;
  if (child === undefined || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill();
  });
}

/** The .env Probot wrote: KEY=value lines, double-quoted values with `\n` escapes. */
function readDotEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(folder, '.env'), 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const raw = line.slice(at + 1);
    env[line.slice(0, at)] = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replaceAll('\\n', '\n') : raw;
  }
  return env;
}

const appYml = parse(readFileSync(join(PROJECT_ROOT, 'app.yml'), 'utf8')) as AppYml;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'baton-register-'));
  // The App as the package ships it, built here so the worktree's dist/ is never rewritten.
  await build(optionsFor(BUNDLES.app, folder));
  copyFileSync(join(PROJECT_ROOT, 'app.yml'), join(folder, 'app.yml'));
  copyFileSync(join(PROJECT_ROOT, 'package.json'), join(folder, 'package.json'));
  // The worker workflow installs the fix-issue agents' CLIs unless the runner has them: the fakes.
  const actions = withActions({ actions: batonActionMap(PROJECT_ROOT), env: fakeAgentRunnerEnv(steering()) });
  emu = await startEmulator({ plugins: [actions.plugin] });
  runner = actions.runner;
  appPort = await freePort();
}, 60_000);

afterAll(async () => {
  await stopApp();
  await runner?.idle();
  await emu?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("Probot's registration flow, on the emulator", () => {
  let code = '';

  it('serves /probot with app.yml as the manifest, posted to GitHub\'s "new App" page', async () => {
    await startApp();
    expect(log).toContain('Probot is in setup mode');
    const page = await browse(`http://127.0.0.1:${appPort}/probot`);
    expect(page.status).toBe(200);
    const action = /<form action="([^"]+)" method="post"/.exec(page.body)?.[1];
    expect(action).toBe(`http://127.0.0.1:${emu.port}/settings/apps/new`);
    const text = /name="manifest" id="manifest" value='([^']*)'/.exec(page.body)?.[1];
    expect(text, 'the manifest sits in a single-quoted attribute: app.yml must hold no single quote').toBeDefined();
    const manifest = JSON.parse(text!) as Record<string, unknown>;
    expect(manifest.name).toBe(appYml.name);
    expect(manifest.default_permissions).toEqual(appYml.default_permissions);
    expect(manifest.default_events).toEqual(appYml.default_events);
    expect(manifest.redirect_url).toBe(`http://127.0.0.1:${appPort}/probot/setup`);
    // app.yml names no hook: Probot points it at the address the page was opened at.
    expect(manifest.hook_attributes).toEqual({ url: `http://127.0.0.1:${appPort}/` });

    // The browser submits the form; GitHub registers the App and sends the browser back with a code.
    const created = await browse(action!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ manifest: text! }).toString() });
    expect(created.status).toBe(302);
    const back = new URL(created.location!);
    expect(`${back.origin}${back.pathname}`).toBe(manifest.redirect_url);
    code = back.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    expect(emu.store.app).toMatchObject({ name: 'baton', slug: 'baton', permissions: appYml.default_permissions, events: appYml.default_events });

    // The App exchanges the code, writes .env and sends the browser on to install the App.
    const setup = await browse(created.location!);
    expect(setup.status, log).toBe(302);
    expect(setup.location).toBe(`${emu.webUrl}/apps/baton/installations/new`);
  }, 60_000);

  it('writes the registered App\'s id, key and webhook secret to .env', async () => {
    const env = readDotEnv();
    expect(env.APP_ID).toBe(String(emu.store.app.id));
    expect(env.WEBHOOK_SECRET).toBe(emu.webhooks.secret);
    expect(env.GITHUB_CLIENT_ID).toBe(emu.store.app.clientId);
    // The key is the App's: GitHub takes a JWT it signs, and refuses one signed with another key.
    const api = (jwt: string) => fetch(`${emu.apiUrl}/app`, { headers: { authorization: `Bearer ${jwt}` } });
    const ok = await api(appJwt(env.APP_ID!, env.PRIVATE_KEY!));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { id: number }).id).toBe(Number(env.APP_ID));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect((await api(appJwt(env.APP_ID!, other))).status).toBe(401);
  });

  it('refuses the same code a second time (single use)', async () => {
    const again = await fetch(`${emu.apiUrl}/app-manifests/${code}/conversions`, { method: 'POST' });
    expect(again.status).toBe(404);
  });

  it('restarted from .env, takes deliveries signed with the new secret and acts on them; refuses another secret', async () => {
    await stopApp();
    // The manifest's hook was the page's address; the App listens on Probot's webhook path: set
    // it in the App's settings (docs/operations.md), as the emulator's hook configuration here.
    expect(emu.webhooks.url).toBe(`http://127.0.0.1:${appPort}/`);
    emu.webhooks.configure({ url: `http://127.0.0.1:${appPort}/api/github/webhooks` });
    await startApp();
    expect(log).not.toContain('setup mode');

    // Installed as the emulator installs its App: on the account of each repository.
    await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n', '.github/workflows/baton-worker.yml': await initWorkerWorkflow(), '.agents/workflows/hello.yml': HELLO });
    emu.store.setRole('acme', 'widgets', 'alice', 'admin');
    const alice = new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken('alice') });
    const o = { owner: 'acme', repo: 'widgets' };
    const issue = (await alice.rest.issues.create({ ...o, title: 'Say hi', body: '' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:hello'] });

    // The App acts as the registered App (`baton[bot]`, its slug): its status comment follows the run to its end.
    const done = `run \`hello-${issue.number}-1\` — succeeded`;
    const statusComment = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'baton[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    for (let i = 0; i < 900 && !(await statusComment()).includes(done); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await statusComment(), log).toContain(done);
    const labeled = emu.webhooks.deliveries.find((d) => d.event === 'issues' && d.action === 'labeled')!;
    expect(labeled.status).toBe(200);

    // A delivery signed with any other secret is refused.
    const secret = emu.webhooks.secret;
    emu.webhooks.configure({ secret: 'not-the-apps-secret' });
    await emu.webhooks.redeliver(labeled.id);
    emu.webhooks.configure({ secret });
    expect(emu.webhooks.deliveries.at(-1)).toMatchObject({ id: labeled.id, status: 400 });
    emu.assertNoViolations();
  }, 120_000);
});
