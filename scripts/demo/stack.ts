// What the demo runs on: the GitHub emulator with its Actions runner (a `uses:
// baton-dev/baton@…` step runs this checkout's bundled Action, dist/action.js), and the
// baton App started the way `npm start` starts it — Probot's `run()` with Probot's
// environment, GHE_HOST/GHE_PROTOCOL pointing at the emulator — as a real HTTP server
// that receives the emulator's signed webhooks.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { run } from 'probot';
import { batonApp } from '../../src/app/app.ts';
import { batonOctokit } from '../../src/app/octokit.ts';
import type { RunService } from '../../src/app/runs.ts';
import { withActions, type ActionsRunner } from '../../tests/emulator/actions/index.ts';
import { batonActionMap } from '../../tests/emulator/actions/baton-action.ts';
import { startEmulator, type Emulator } from '../../tests/emulator/emulator.ts';

/** A tenth of GitHub's pacing: the demo's story in seconds, on the path production takes. */
export const DEMO_TIME_SCALE = 0.1;

export interface StackOptions {
  /** This checkout: where `uses: baton-dev/baton@…` finds action.yml. */
  root: string;
  /** Probot's LOG_LEVEL for the App (default `error`). */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /**
   * The time scale of the App's Octokit (batonOctokit): its throttling and retries always run,
   * as on GitHub (one write a second, three seconds between writes that notify people);
   * below 1 their intervals shrink. Default DEMO_TIME_SCALE; 1 is GitHub's real pacing.
   */
  timeScale?: number;
}

export interface Stack {
  emu: Emulator;
  runner: ActionsRunner;
  /** The App's run service (its per-run queue); `idle()` waits for it. */
  runs: () => RunService | undefined;
  appUrl: string;
  close(): Promise<void>;
}

/** A port nothing listens on now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startStack(o: StackOptions): Promise<Stack> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const secret = randomBytes(16).toString('hex');
  const actions = withActions({ actions: batonActionMap(o.root) });
  const emu = await startEmulator({ webhookSecret: secret, appPublicKey: publicKey, plugins: [actions.plugin] });

  let runs: RunService | undefined;
  let server: Awaited<ReturnType<typeof run>> | undefined;
  try {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      APP_ID: '1',
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: secret,
      HOST: '127.0.0.1',
      PORT: String(port),
      GHE_HOST: `127.0.0.1:${emu.port}`,
      GHE_PROTOCOL: 'http',
      LOG_LEVEL: o.logLevel ?? 'error',
    };
    const before = new Set(process.listeners('SIGINT'));
    // As src/app/main.ts: run(batonApp(), { Octokit: batonOctokit() }), with the env given here.
    // run() hands Probot the env below, not process.env: the App's key is given to baton too.
    server = await run(batonApp({ onReady: (r) => (runs = r), privateKey }), {
      env,
      Octokit: batonOctokit({ timeScale: o.timeScale ?? DEMO_TIME_SCALE }),
    });
    // Probot's run() exits the process on Ctrl-C; the demo cleans up first.
    for (const l of process.listeners('SIGINT')) if (!before.has(l)) process.off('SIGINT', l);
    const appUrl = `http://127.0.0.1:${port}`;
    // Probot's health check, as a load balancer would probe it.
    const ping = await fetch(`${appUrl}/ping`);
    if (!ping.ok || (await ping.text()) !== 'PONG') throw new Error(`the App did not answer GET /ping (${ping.status})`);
    emu.webhooks.configure({ url: `${appUrl}/api/github/webhooks` });
    const s = server;
    return {
      emu,
      runner: actions.runner,
      runs: () => runs,
      appUrl,
      close: async () => {
        await s.stop().catch(() => {});
        await emu.close();
      },
    };
  } catch (err) {
    await server?.stop().catch(() => {});
    await emu.close();
    throw err;
  }
}
