// The app under test as a real HTTP server, wired to the emulator: signed webhooks in (overlapping,
// in a seeded random order by default, as GitHub promises no order),
// OpenAPI-checked requests out, worker jobs run by the emulator's Actions runner with the
// real worker — the worker workflow `baton init --mode app` writes, whose bundled Action
// (`uses: baton-dev/baton@v1`, mode agent) drives the fake agent CLIs, steered per step
// (`agents` below, see fixtures/agents/). The app's Octokit is the one `npm start` builds
// (throttling, retries), with time compressed. The app can be "killed" after its n-th API
// request (every later request fails, as in a dead process) and a fresh one started on the
// same port, with the failed deliveries redelivered in order. Closing the harness fails the
// test when a delivery was finally answered with anything but a 2xx or the app logged an error.
import { AsyncLocalStorage } from 'node:async_hooks';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Octokit } from '@octokit/rest';
import { pino } from 'pino';
import { parse as parseYaml } from 'yaml';
import { Probot, createNodeMiddleware } from 'probot';
import { onTestFailed } from 'vitest';
import { batonApp } from '../../src/app/app.ts';
import { batonOctokit } from '../../src/app/octokit.ts';
import type { EventTime } from '../../src/app/event-time.ts';
import type { DoorReport, WriteBudgetOptions } from '../../src/app/write-budget.ts';
import type { LeaseOptions, RunService } from '../../src/app/runs.ts';
import { DEFAULT_SWEEP_INTERVAL_MS, type Sweeper, type SweepReport } from '../../src/app/sweeper.ts';
import { startEmulator, type CreateRepoOptions, type Emulator } from '../emulator/emulator.ts';
import type { EmulatorReadings } from '../emulator/readings.ts';
import type { Delivery } from '../emulator/webhooks.ts';
import { withActions } from '../emulator/actions/index.ts';
import type { ActionsRunner } from '../emulator/actions/index.ts';
import { batonActionMap } from '../emulator/actions/baton-action.ts';
import { initFiles } from '../actions-only/harness.ts';
import type { RunState } from '../../src/engine/index.ts';
import { parseRunId } from '../../src/hosts/github/run-id.ts';
import { readStateBlock } from '../../src/record/state-block.ts';

/** The worker workflow `baton init --mode app` writes for the library's fix-issue (claude-code and codex). */
export async function initWorkerWorkflow(): Promise<string> {
  const files = await initFiles(['--mode', 'app', '--workflows', 'fix-issue']);
  const worker = files['.github/workflows/baton-worker.yml'];
  if (worker === undefined) throw new Error('baton init --mode app wrote no .github/workflows/baton-worker.yml');
  return worker;
}

/**
 * How much faster than GitHub's pacing the app's Octokit runs by default (writes 1 s apart
 * become 10 ms apart, a retry-after of 60 s becomes 0.6 s). `timeScale: 1` is real time.
 */
export const TEST_TIME_SCALE = 0.01;
/**
 * The claim time-to-live of the apps under test (see boot): long enough that an event on the
 * emulator (a second or two) rarely renews its claim, short enough that a claim left by a killed
 * app is taken over within seconds. Production's is 5 minutes.
 */
export const HARNESS_LEASE_TTL_MS = 5_000;

const here = fileURLToPath(new URL('.', import.meta.url));
/** The project root: what `uses: baton-dev/baton@v1` runs (action.yml → dist/action.js). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAKE_AGENTS = join(PROJECT_ROOT, 'tests', 'fixtures', 'fake-agents');
const ROUTED_AGENTS = join(here, 'fixtures', 'agents');

/**
 * What the fake agent CLIs do, per step: `"<step>"` or `"<step>/<slot>"` (fan-out items are
 * slots `0`, `1`…; fix rounds are slots `fix-<n>` of the gate step, its reviewer `review`)
 * → the behaviours of tests/fixtures/fake-agents/README.md, one per invocation of the CLI
 * (attempts and re-prompts each take the next; the last one repeats).
 */
/** One delivery as the app saw it, in performance.now() milliseconds. */
export interface DeliveryTiming {
  /** The webhook's event (`X-GitHub-Event`). */
  event: string;
  receivedAt: number;
  /** When the app answered it (GitHub waits 10 s for that). */
  answeredAt?: number;
  /** When each API call made for it was issued. */
  calls: number[];
  /** Each call's issue and completion: the emulator's latency is doneAt - issuedAt. */
  callSpans: Array<{ issuedAt: number; doneAt: number }>;
}

export type AgentScript = Record<string, Array<Record<string, unknown>>>;
const SECRET = 'app-test-secret';

class Killed extends Error {}

/** What the harness needs of Bottleneck's Redis connection (Probot's, for REDIS_URL). */
interface RedisConnection {
  disconnect(flush?: boolean): Promise<unknown>;
}

export interface AppUnderTest {
  runs: RunService;
  port: number;
  /** Kills this App process after `n` more API requests (every later one fails, as in a dead process). */
  killAfter(n: number): void;
  /** Kills this App process right after a request for which `match('METHOD url body -> status')` holds was answered. */
  killAfterRequest(match: (request: string) => boolean): void;
  readonly dead: boolean;
  /** API requests the app made so far. */
  requests: number;
  /** Of those, the writes (anything but GET and HEAD). */
  writes: number;
  /** One sweep of open runs, as the app's timer runs it (sweeper.ts). */
  sweep(): Promise<SweepReport>;
  /** Sweeps done so far (by the timer or `sweep()`). */
  sweeps: number;
  close(): Promise<void>;
}

export interface Harness {
  emu: Emulator;
  runner: ActionsRunner;
  app: AppUnderTest;
  /** Every App process (`replicas`); `app` is the first. */
  apps: AppUnderTest[];
  port: number;
  /** A user's Octokit (comments, labels, reviews as that person). */
  as(login: string): Octokit;
  /** Kills the app after `n` more API requests. */
  killAfter(n: number): void;
  /** Starts a fresh app process on the same port and redelivers what failed, in order. */
  restart(): Promise<void>;
  /** Work the test started in the background (a CI bot posting statuses); settle waits for it. */
  track(work: Promise<unknown>): void;
  /** Waits until webhooks, the app and the runner are all quiet. */
  settle(): Promise<void>;
  /** Waits until `ready()` holds (a worker job running, …); throws naming `what` if it never does. */
  waitFor(what: string, ready: () => boolean | Promise<boolean>): Promise<void>;
  /** The status comment of the run on thread `number` (the bot's comment with the record), of acme/widgets unless `where` says. */
  record(number: number, where?: RepoName): Promise<string>;
  /** Every comment body on thread `number` (of acme/widgets unless `where` says), oldest first. */
  comments(number: number, where?: RepoName): Promise<string[]>;
  /**
   * The state of run `runId` as its status comment on GitHub carries it (outputs kept in check
   * runs stay references): the App keeps no finished run in memory (src/hosts/github/memory.ts).
   */
  runState(runId: string): Promise<RunState>;
  /** Per webhook the app took: when it arrived, was answered, and each API call made for it (ms). */
  timings: DeliveryTiming[];
  /** Per event the app routed (and per sweep): its wall time split into the App's own and GitHub's, as the metrics observe it. */
  eventTimes: EventTime[];
  /** The fake agents' invocations (README: FAKE_AGENT_LOG), oldest first. */
  agentCalls(): Array<{ name: string; prompt: string; invocation: number }>;
  /** Deliveries whose last attempt was not answered with a 2xx (close() fails the test on any). */
  deliveryFailures(): string[];
  /** Errors the live app logged (close() fails the test on any); a test that provokes one empties it. */
  appErrors: string[];
  close(): Promise<void>;
}

/** A repository of the emulator, for a test with more than acme/widgets (another installation). */
export interface RepoName {
  owner: string;
  repo: string;
}

const HOME: RepoName = { owner: 'acme', repo: 'widgets' };

export interface HarnessOptions {
  files: Record<string, string>;
  agents?: AgentScript;
  roles?: Record<string, 'admin' | 'write' | 'read' | 'maintain' | 'triage'>;
  /** The app's clock (engine deadlines); default Date.now. */
  now?: () => number;
  /** Length of a `timeout-minutes` minute on the runner (default 60000). */
  minuteMs?: number;
  /** The app's Octokit's time scale (batonOctokit): default TEST_TIME_SCALE; 1 is GitHub's real pacing. */
  timeScale?: number;
  /** The app's write budget per installation (batonOctokit; default GitHub's limits), its windows scaled by `timeScale`. */
  writeBudget?: Partial<WriteBudgetOptions>;
  /** Told of each App write's wait at the write budget's door (bench). */
  onDoor?: (report: DoorReport) => void;
  /** The repository's visibility and its owner's plan (default: public, Free). */
  repo?: Pick<CreateRepoOptions, 'visibility' | 'plan'>;
  /**
   * The app's sweep timer at its production interval, scaled by `timeScale` like every wait
   * (2 minutes become 1.2 s). Default off: tests of events count their requests exactly, and
   * tests about what one sweep does call `app.sweep()`.
   */
  sweepTimer?: boolean;
  /**
   * App processes sharing the installation (default 1). With more, a front door spreads the
   * deliveries round-robin and sends each to the next replica as well, at the same moment.
   */
  replicas?: number;
  /** The app's claims across processes (runs.ts): default HARNESS_LEASE_TTL_MS and the production poll scaled by `timeScale`. */
  lease?: Partial<LeaseOptions>;
  /** Run the repository's own workflows on the events they listen to (CI on push…), as GitHub does; default off. */
  triggerOnWebhooks?: boolean;
  /** Repository secrets replacing the default agent keys (`''`: the secret is not set). */
  secrets?: Record<string, string>;
  /** Where GitHub is silent, which behaviour the emulator shows (tests/emulator/readings.ts). */
  readings?: Partial<EmulatorReadings>;
  /** Comments a tracking issue takes before baton continues on a new one (default: production's 2,000). */
  trackingIssueComments?: number;
  /**
   * How deliveries arrive. Default `shuffled`: GitHub guarantees no order, so they overlap and
   * arrive in a seeded random order (a failing test prints its seed; `BATON_DELIVERY_SEED=<n>`
   * replays it). `in-order`: one at a time in the order they happened, for a test whose point
   * needs that order (say why where it is used).
   */
  deliveries?: 'shuffled' | 'in-order';
  /**
   * Every worker job as GitHub's `runner` user in namespaces of its own (the runner's
   * `sandbox`): the worker workflow's fence step, sudo drop and fenced launch take their
   * production path. Default off.
   */
  sandbox?: boolean;
  /**
   * Probot's REDIS_URL for every App process (tests/support/redis-server.ts starts one): its
   * throttle and the write budget are then kept in that Redis, shared by the replicas.
   */
  redisUrl?: string;
  /** More `uses:` the runner resolves (repo@ref → a directory), beside this checkout's baton Action: another release's (baton-action.ts). */
  actions?: Record<string, string>;
}

/** How long a shuffled delivery may wait before it is sent: deliveries due closer than this swap. */
export const DELIVERY_JITTER_MS = 25;

/** The seed of this harness's delivery order: the environment's (a replay) or a fresh one. */
function deliverySeed(): number {
  const given = process.env.BATON_DELIVERY_SEED;
  return given !== undefined && given !== '' ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** Writes the steering files the routed fake agents read; returns their folder. */
export function steering(agents: AgentScript = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-app-agents-'));
  for (const [key, list] of Object.entries(agents)) writeFileSync(join(dir, `${key.replace('/', '.')}.json`), JSON.stringify(list));
  return dir;
}

/**
 * What the emulated runner's steps get to run the routed fake agent CLIs: them first on PATH
 * (so the worker workflow's install steps find the pinned versions and install nothing), and
 * where their steering and call log are.
 */
export function fakeAgentRunnerEnv(steer: string): Record<string, string> {
  return { PATH: [ROUTED_AGENTS, process.env.PATH ?? ''].join(delimiter), FAKE_AGENTS, BATON_STEERING: steer, FAKE_AGENT_LOG: join(steer, 'calls.jsonl') };
}

export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const steer = steering(o.agents);
  // Sandboxed, the fake agents run as another user: their steering folder (where they count
  // invocations and log calls) is the test's channel to them, open to every user.
  if (o.sandbox) chmodSync(steer, 0o1777);
  const actions = withActions({
    actions: { ...batonActionMap(PROJECT_ROOT), ...o.actions },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test', CODEX_API_KEY: 'sk-codex-test', ...o.secrets },
    env: fakeAgentRunnerEnv(steer),
    ...(o.sandbox ? { sandbox: true } : {}),
    ...(o.minuteMs ? { minuteMs: o.minuteMs } : {}),
    ...(o.triggerOnWebhooks ? { triggerOnWebhooks: true } : {}),
  });
  // GitHub's secondary limits counted on the App's time: a compressed minute is GitHub's minute.
  const emu = await startEmulator({ webhookSecret: SECRET, appPublicKey: publicKey, plugins: [actions.plugin], secondaryLimits: { timeScale: o.timeScale ?? TEST_TIME_SCALE }, ...(o.readings ? { readings: o.readings } : {}) });
  await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n', '.github/workflows/baton-worker.yml': await initWorkerWorkflow(), ...o.files }, o.repo);
  for (const [login, role] of Object.entries(o.roles ?? { alice: "admin" as const })) emu.store.setRole('acme', 'widgets', login, role);

  const timings: DeliveryTiming[] = [];
  const eventTimes: EventTime[] = [];
  const delivery = new AsyncLocalStorage<DeliveryTiming>();
  /** Deliveries acknowledged whose work then failed, and not handled by any app since. */
  const failedWork = new Set<string>();
  const handledWork = new Set<string>();
  let port = 0;
  /** What a live app logged at error level or above (a handler that threw, a lost delivery). */
  const appErrors: string[] = [];

  const boot = async (listenOn = 0): Promise<AppUnderTest> => {
    let runs: RunService | undefined;
    let sweeper: Sweeper | undefined;
    let sweeps = 0;
    const redisConnections = new Set<RedisConnection>();
    const state = { requests: 0, writes: 0, dead: false, budget: Infinity, dieAfter: undefined as ((request: string) => boolean) | undefined };
    // Errors of a killed app are the kill itself, not findings.
    const log = pino({ level: 'warn' }, { write: (line: string) => {
      const entry = JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } };
      if (entry.level >= 50 && !state.dead) appErrors.push(`${entry.msg ?? ''} ${entry.err?.message ?? ''}`.trim());
    } });
    const fetchHook: typeof fetch = async (input, init) => {
      if (state.dead) throw new Killed('the app was killed');
      if (state.budget <= 0) {
        state.dead = true;
        throw new Killed('the app was killed');
      }
      state.budget--;
      state.requests++;
      if (!['GET', 'HEAD'].includes((init?.method ?? 'GET').toUpperCase())) state.writes++;
      const timing = delivery.getStore();
      const issuedAt = performance.now();
      timing?.calls.push(issuedAt);
      try {
        const res = await fetch(input, init);
        // Dies right after a matching request was answered: what it did is on GitHub, nothing after it.
        if (state.dieAfter?.(`${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input)} ${typeof init?.body === 'string' ? init.body : ''} -> ${res.status}`)) state.budget = 0;
        return res;
      } finally {
        timing?.callSpans.push({ issuedAt, doneAt: performance.now() });
      }
    };
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: SECRET,
      baseUrl: `${emu.url}/api/v3`,
      log,
      request: { fetch: fetchHook },
      // As src/app/main.ts builds it, only faster.
      Octokit: batonOctokit({ timeScale: o.timeScale ?? TEST_TIME_SCALE, ...(o.writeBudget ? { writeBudget: o.writeBudget } : {}), ...(o.onDoor ? { onDoor: o.onDoor } : {}) }).plugin(
        // The Redis connection Probot gave the throttle (REDIS_URL), closed with the app.
        (_octokit: unknown, options: object) => {
          const connection = ((options as { throttle?: unknown }).throttle as { connection?: RedisConnection } | undefined)?.connection;
          if (connection) redisConnections.add(connection);
        },
      ),
      ...(o.redisUrl ? { redisConfig: o.redisUrl } : {}),
    });
    const middleware = await createNodeMiddleware(batonApp({
      onReady: (r, s, m) => {
        runs = r;
        sweeper = s;
        m.onEventTime = (t) => eventTimes.push(t);
        const once = s.sweep.bind(s);
        s.sweep = () => (sweeps++, once());
      },
      ...(o.trackingIssueComments ? { trackingIssueComments: o.trackingIssueComments } : {}),
      sweepIntervalMs: o.sweepTimer ? DEFAULT_SWEEP_INTERVAL_MS * (o.timeScale ?? TEST_TIME_SCALE) : 0,
      // The time-to-live is not scaled by timeScale: an event's own time on the emulator is not
      // compressed (a 3 s time-to-live had long fan-out events renew their claims mid-event).
      lease: { ttlMs: HARNESS_LEASE_TTL_MS, pollMs: 1000 * (o.timeScale ?? TEST_TIME_SCALE), ...o.lease },
      // Deliveries are acknowledged before their work: the ones whose work failed (a kill) are what an operator redelivers.
      onWorkDone: (id, outcome) => {
        // Handled by any app (a replica, or the app after a restart): not lost, whatever another did with it.
        if (outcome === 'handled') {
          handledWork.add(id);
          failedWork.delete(id);
        } else if (!handledWork.has(id)) failedWork.add(id);
      },
      privateKey, ...(o.now ? { now: o.now } : {}) }), { probot, webhooksPath: '/' });
    const server = createServer((req, res) => {
      if (state.dead) {
        res.writeHead(503).end();
        return;
      }
      const timing: DeliveryTiming = { event: String(req.headers['x-github-event'] ?? ''), receivedAt: performance.now(), calls: [], callSpans: [] };
      timings.push(timing);
      res.on('finish', () => (timing.answeredAt = performance.now()));
      void delivery.run(timing, () => middleware(req, res, () => res.writeHead(404).end()));
    });
    await new Promise<void>((resolve) => server.listen(listenOn, '127.0.0.1', resolve));
    const s = server;
    return {
      runs: runs!,
      port: (server.address() as AddressInfo).port,
      killAfter(n: number) {
        state.budget = n;
      },
      killAfterRequest(match: (request: string) => boolean) {
        state.dieAfter = match;
      },
      get dead() {
        return state.dead;
      },
      get requests() {
        return state.requests;
      },
      get writes() {
        return state.writes;
      },
      sweep: () => sweeper!.sweep(),
      get sweeps() {
        return sweeps;
      },
      close: async () => {
        sweeper!.stop();
        state.dead = true;
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
        for (const c of redisConnections) await c.disconnect(true);
      },
    };
  };

  // Replicas: every App process has its own memory and queue; a front door spreads the
  // deliveries round-robin and hands each to the next replica too, at the same moment.
  const apps: AppUnderTest[] = [];
  for (let i = 0; i < (o.replicas ?? 1); i++) apps.push(await boot());
  let app = apps[0]!;
  port = app.port;
  const front = apps.length > 1 ? await frontDoor(() => apps) : undefined;
  emu.webhooks.configure({ url: `http://127.0.0.1:${front?.port ?? port}/`, events: appEvents() });
  let replay = '';
  if ((o.deliveries ?? 'shuffled') === 'shuffled') {
    const seed = deliverySeed();
    emu.webhooks.configure({ shuffle: { seed, jitterMs: DELIVERY_JITTER_MS } });
    replay = `deliveries were shuffled with seed ${seed}: replay with BATON_DELIVERY_SEED=${seed}`;
    try {
      onTestFailed(() => console.error(replay));
    } catch {
      // Started outside a test (a beforeAll): close() still names the seed when it fails.
    }
  }

  const background = new Set<Promise<unknown>>();
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 400; i++) {
      while (background.size) await Promise.allSettled([...background]);
      await emu.webhooks.idle();
      for (const a of apps) await a.runs.idle();
      await actions.runner.idle();
      await emu.webhooks.idle();
      for (const a of apps) await a.runs.idle();
      const pending = emu.webhooks.deliveries.some((d) => !d.dropped && d.status === undefined && d.error === undefined);
      // A webhook delivered meanwhile may have started a trigger (triggerOnWebhooks): not settled yet.
      if (!pending && !actions.runner.busy && ![...actions.runner.store.runs.values()].some((r) => r.status !== "completed")) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the app, the emulator and the runner did not settle');
  };

  /**
   * Deliveries whose last attempt was answered with anything but a 2xx, or acknowledged and then
   * failed in their work (the App answers first), as `event.action id: status`.
   */
  const deliveryFailures = (): string[] => {
    const last = new Map<string, Delivery>();
    for (const d of emu.webhooks.deliveries) if (!d.dropped) last.set(d.id, d);
    return [...last.values()]
      .filter((d) => d.error !== undefined || (d.status !== undefined && (d.status < 200 || d.status >= 300)) || failedWork.has(d.id))
      .map((d) => `${d.event}${d.action ? `.${d.action}` : ''} ${d.id}: ${d.error ?? (failedWork.has(d.id) ? 'work failed' : d.status)}`);
  };

  const h: Harness = {
    emu,
    runner: actions.runner,
    get app() {
      return app;
    },
    get port() {
      return port;
    },
    as: (login) => new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken(login) }),
    get apps() {
      return apps;
    },
    killAfter(n) {
      app.killAfter(n);
    },
    async restart() {
      await app.close();
      // Deliveries in flight when the app died fail now, not after the redelivery list is made.
      await emu.webhooks.idle();
      app = apps[0] = await boot(port);
      // What the dead app did not take (errors, 5xx) or took and did not finish (its log names
      // them), redelivered in order, like an operator would.
      const failed = emu.webhooks.deliveries.filter((d) => !d.redelivery && !d.dropped && (d.error !== undefined || (d.status ?? 200) >= 300 || failedWork.has(d.id)));
      const seen = new Set<string>();
      for (const d of failed) {
        if (seen.has(d.id)) continue;
        seen.add(d.id);
        // The emulator's pooled connection to the dead server may fail once: send again.
        for (let i = 0; i < 3; i++) {
          await emu.webhooks.redeliver(d.id);
          await app.runs.idle();
          const last = emu.webhooks.deliveries.filter((x) => x.id === d.id).at(-1)!;
          if (last.error === undefined) break;
        }
      }
    },
    settle,
    timings,
    eventTimes,
    async waitFor(what, ready) {
      for (let i = 0; i < 1500; i++) {
        if (await ready()) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`gave up waiting for ${what}`);
    },
    async comments(number, where = HOME) {
      const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...where, issue_number: number, per_page: 100 });
      return all.map((c) => c.body ?? '');
    },
    async runState(runId) {
      const thread = parseRunId(runId)?.thread;
      if (thread === undefined) throw new Error(`${runId} is no run id`);
      for (const body of await h.comments(thread)) {
        if (!body.includes('baton:record')) continue;
        const read = readStateBlock(body, undefined, { unsignedRead: true });
        if (read.ok && read.state.runId === runId) return read.state;
      }
      throw new Error(`no status comment of run ${runId} on #${thread}`);
    },
    async record(number, where = HOME) {
      const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...where, issue_number: number, per_page: 100 });
      const found = all.find((c) => c.user?.login === 'baton[bot]' && c.body?.includes('baton:record'));
      if (!found) throw new Error(`no status comment on #${number}`);
      return found.body!;
    },
    agentCalls() {
      let text: string;
      try {
        text = readFileSync(join(steer, 'calls.jsonl'), 'utf8');
      } catch {
        return [];
      }
      return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name: string; prompt: string; invocation: number });
    },
    track(work) {
      background.add(work);
      void work.finally(() => background.delete(work));
    },
    deliveryFailures,
    appErrors,
    async close() {
      // Deliveries already due still go out (a shuffled one may wait a few ms): GitHub sends them
      // whether or not the test looks, and a live app takes them.
      await emu.webhooks.idle();
      for (const a of apps) if (!a.dead) await a.runs.idle();
      for (const a of apps) await a.close();
      await front?.close();
      await emu.close();
      rmSync(steer, { recursive: true, force: true });
      // GitHub does not redeliver: a delivery whose last answer was not a 2xx, or whose work failed, is lost work.
      const failures = deliveryFailures();
      if (failures.length) throw new Error(`deliveries the app did not take (answered with anything but a 2xx, or failed in their work):\n${failures.join('\n')}\n${replay}`);
      if (appErrors.length) throw new Error(`the app logged errors:\n${appErrors.join('\n')}\n${replay}`);
      // A request of the app's that broke GitHub's description fails the test even if the app coped.
      emu.assertNoViolations();
    },
  } as Harness;
  return h;
}

/** The events app.yml subscribes the App to (`default_events`), plus the installation events every App gets. */
function appEvents(): string[] {
  const manifest = parseYaml(readFileSync(join(PROJECT_ROOT, 'app.yml'), 'utf8')) as { default_events?: string[] };
  return [...(manifest.default_events ?? []), 'installation', 'installation_repositories'];
}

/**
 * A load balancer in front of several App processes: delivery k goes to replica k mod n and,
 * at the same moment, to replica k+1 mod n (a redelivery racing the first). GitHub sees the
 * best answer: a 2xx when either replica took it.
 */
async function frontDoor(apps: () => AppUnderTest[]): Promise<{ port: number; close(): Promise<void> }> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const all = apps();
      const k = next++;
      const targets = [all[k % all.length]!, all[(k + 1) % all.length]!];
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<string, string>;
      void Promise.all(
        targets.map((t) =>
          fetch(`http://127.0.0.1:${t.port}/`, { method: req.method ?? 'POST', headers, body }).then(
            async (r) => ({ status: r.status, text: await r.text() }),
            () => ({ status: 502, text: 'replica unreachable' }),
          ),
        ),
      ).then((answers) => {
        const best = answers.find((a) => a.status >= 200 && a.status < 300) ?? answers[0]!;
        res.writeHead(best.status).end(best.text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** App-side requests (the installation token and the app JWT), from the emulator's log. */
/**
 * Opens an issue as alice on acme/widgets and labels it (`opened`, then `labeled`: a label
 * put on after the fact, as a person does); returns its number. Does not wait for the App.
 */
export async function openLabelled(h: Pick<Harness, 'as'>, label: string, issue: { title?: string; body?: string } = {}): Promise<number> {
  const alice = h.as('alice');
  const o = { owner: 'acme', repo: 'widgets' };
  const { number } = (await alice.rest.issues.create({ ...o, title: issue.title ?? `Try ${label}`, body: issue.body ?? 'Please.' })).data;
  await alice.rest.issues.addLabels({ ...o, issue_number: number, labels: [label] });
  return number;
}

export function appRequests(emu: Emulator): typeof emu.requestLog {
  return emu.requestLog.filter((r) => r.identity.startsWith('installation:') || r.identity === 'app');
}

/** A workflow of `steps` agent steps in a row (a, b, c, …): the shape requests per step are counted on. */
export function chainWorkflow(steps: number): string {
  const ids = Array.from({ length: steps }, (_, i) => String.fromCharCode(97 + i));
  return ['name: chain', 'on: { labels: ["baton:chain"] }', 'agents: { coder: { uses: claude-code } }', 'steps:', ...ids.map((id) => `  - { id: ${id}, agent: coder, prompt: "${id}" }`), ''].join('\n');
}
