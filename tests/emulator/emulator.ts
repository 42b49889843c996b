/**
 * The GitHub emulator: one HTTP server on 127.0.0.1 with its own temp directory of bare
 * git repositories, in-memory issues/PRs/checks, installation tokens, signed webhooks
 * and faults. `startEmulator()` is all a test needs:
 *
 *   const emu = await startEmulator({ webhookUrl, webhookSecret });
 *   await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
 *   const octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner: 'acme', repo: 'widgets', permissions: { issues: 'write' } }) });
 *   …
 *   emu.assertNoViolations();
 *   await emu.close();
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auth } from './auth.ts';
import { Faults, type FaultOptions } from './faults.ts';
import { SecondaryLimits, type SecondaryLimitOptions } from './secondary-limits.ts';
import { GitRepo } from './git.ts';
import { createHandler, type RequestLogEntry } from './http/server.ts';
import { Router } from './http/router.ts';
import { WebPages } from './http/web.ts';
import { AppRegistrations } from './app-registration.ts';
import { OPERATIONS } from './openapi/operations.ts';
import { openApi, type OpenApi } from './openapi/validator.ts';
import { onPush, pushHookScript, type RefUpdate } from './push.ts';
import { registerRoutes } from './routes/index.ts';
import { Shapes } from './shapes.ts';
import { githubClock, Store, type GitHubClock, type Plan, type Repo, type Visibility } from './store.ts';
import { Webhooks } from './webhooks.ts';
import { readingsFrom, type EmulatorReadings } from './readings.ts';

export interface EmulatorOptions {
  /** Where webhooks are POSTed; none are sent without it (they are still recorded). */
  webhookUrl?: string;
  webhookSecret?: string;
  faults?: FaultOptions;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Verify app JWTs against this public key; otherwise any well-formed RS256 JWT is accepted. */
  appPublicKey?: string;
  /** Extra routes and behaviour (the Actions runner registers itself this way). */
  plugins?: EmulatorPlugin[];
  /** Where GitHub is silent: which plausible behaviour this emulator shows (readings.ts). */
  readings?: Partial<EmulatorReadings>;
  /** GitHub's secondary limits on content creation, counted for the App (secondary-limits.ts): their time scale and answer. */
  secondaryLimits?: SecondaryLimitOptions;
}

export type EmulatorPlugin = (emulator: Emulator) => void | Promise<void>;

export interface CreateRepoOptions {
  defaultBranch?: string;
  /** Message of the initial commit. */
  message?: string;
  /** Default public (see REPO_DEFAULTS in store.ts). */
  visibility?: Visibility;
  /** The owner's plan; default free (see REPO_DEFAULTS in store.ts). */
  plan?: Plan;
}

export interface Emulator {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** REST base URL, for Octokit's `baseUrl` and `GITHUB_API_URL` (the API is also under `/api/v3`). */
  apiUrl: string;
  /** Base of `html_url` links (`GITHUB_SERVER_URL`). */
  webUrl: string;
  port: number;
  /** The temp directory holding the bare repositories. */
  root: string;
  store: Store;
  /** GitHub's clock (store.ts): its stamps and the `Date` of its answers; `advance` moves it on. */
  clock: GitHubClock;
  router: Router;
  /** The site's pages a browser posts forms to (the manifest flow's "Create GitHub App"). */
  pages: WebPages;
  /** Apps registered from a manifest (the manifest flow); the last one is the App the emulator serves. */
  registrations: AppRegistrations;
  auth: Auth;
  webhooks: Webhooks;
  faults: Faults;
  /** Where GitHub is silent, the behaviour this emulator shows (readings.ts). */
  readings: EmulatorReadings;
  /** GitHub's secondary limits on content creation, counted per the reading `secondaryLimitIdentity`. */
  secondaryLimits: SecondaryLimits;
  shapes: Shapes;
  openapi: OpenApi;
  /** One entry per API request, in order. */
  requestLog: RequestLogEntry[];
  /**
   * Responses and webhook payloads that broke GitHub's schemas (emulator bugs), and requests
   * that broke them (bugs of their sender, refused as GitHub refuses them).
   */
  violations: string[];
  /** Throws when `violations` is not empty. */
  assertNoViolations(): void;
  createRepo(owner: string, name: string, files?: Record<string, string | Buffer>, options?: CreateRepoOptions): Promise<Repo>;
  /** The store record; throws when there is no such repository. */
  repo(owner: string, name: string): Repo;
  git(owner: string, name: string): GitRepo;
  /** Path of the bare repository: clone it, push to it (pushes reach the API and webhooks). */
  gitDir(owner: string, name: string): string;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  // realpath: macOS and some CI temp dirs are symlinks; git reports real paths.
  const root = await realpath(await mkdtemp(join(tmpdir(), 'baton-emulator-')));
  const store = new Store();
  githubClock.reset();
  const router = new Router(OPERATIONS);
  const faults = new Faults(options.faults);
  const auth = new Auth(store);
  if (options.appPublicKey !== undefined) auth.registerAppKey(options.appPublicKey);
  const repos = new Map<string, GitRepo>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const violations: string[] = [];
  const shapes = new Shapes(store, url, url);
  const webhooks = new Webhooks(store, shapes, faults, (v) => violations.push(v), {
    ...(options.webhookUrl === undefined ? {} : { url: options.webhookUrl }),
    ...(options.webhookSecret === undefined ? {} : { secret: options.webhookSecret }),
  });
  const hookPath = join(root, 'post-receive.mjs');
  await writeFile(hookPath, pushHookScript());

  const emulator: Emulator = {
    url,
    apiUrl: url,
    webUrl: url,
    port,
    root,
    store,
    clock: githubClock,
    router,
    pages: new WebPages(),
    registrations: new AppRegistrations(store, auth, webhooks),
    auth,
    webhooks,
    faults,
    readings: readingsFrom(options.readings),
    secondaryLimits: new SecondaryLimits(store, () => emulator.readings.secondaryLimitIdentity, options.secondaryLimits),
    shapes,
    openapi: openApi(),
    requestLog: [],
    violations,
    assertNoViolations() {
      if (violations.length > 0) throw new Error(`requests or answers broke GitHub's schemas:\n${violations.join('\n')}`);
    },
    async createRepo(owner, name, files, createOptions = {}) {
      if (store.repo(owner, name) !== undefined) throw new Error(`repository ${owner}/${name} exists`);
      const branch = createOptions.defaultBranch ?? 'main';
      const dir = join(root, owner, `${name}.git`);
      const git = await GitRepo.init(dir, branch);
      await git.commitFiles(branch, files ?? { 'README.md': `# ${name}\n` }, createOptions.message ?? 'Initial commit');
      const hook = `#!/bin/sh\nexec "${process.execPath}" "${hookPath}" "${url}/_emulator/push/${owner}/${name}"\n`;
      await git.installHook(hook);
      repos.set(`${owner}/${name}`.toLowerCase(), git);
      return store.addRepo(owner, name, dir, branch, {
        ...(createOptions.visibility === undefined ? {} : { visibility: createOptions.visibility }),
        ...(createOptions.plan === undefined ? {} : { plan: createOptions.plan }),
      });
    },
    repo(owner, name) {
      const repo = store.repo(owner, name);
      if (repo === undefined) throw new Error(`no repository ${owner}/${name}`);
      return repo;
    },
    git(owner, name) {
      const git = repos.get(`${owner}/${name}`.toLowerCase());
      if (git === undefined) throw new Error(`no repository ${owner}/${name}`);
      return git;
    },
    gitDir(owner, name) {
      return emulator.repo(owner, name).gitDir;
    },
    async close() {
      await webhooks.idle().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
      githubClock.reset();
    },
  };

  // Pushes to a bare repository run its post-receive hook, which reports here.
  const internal = async (path: string, body: string) => {
    const m = /^\/_emulator\/push\/([^/]+)\/([^/]+)$/.exec(path);
    if (m === null) return null;
    const updates: RefUpdate[] = body
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((line) => {
        const [before, after, ref] = line.trim().split(' ') as [string, string, string];
        return { before, after, ref };
      });
    await onPush(emulator, emulator.repo(m[1]!, m[2]!), updates, undefined);
    return { status: 204 };
  };
  server.on('request', createHandler(emulator, emulator.openapi, internal));

  registerRoutes(emulator);
  for (const plugin of options.plugins ?? []) await plugin(emulator);
  return emulator;
}
