// `npm start`: the app with Probot's standard environment — APP_ID, PRIVATE_KEY or
// PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, and GHE_HOST / GHE_PROTOCOL to point it at
// GitHub Enterprise Server (or the emulator). Optional: BATON_WORKER_WORKFLOW,
// BATON_STATE_SECRET (the HMAC key of the state block; derived from the private key when unset),
// BATON_SWEEP_INTERVAL (seconds between sweeps of open runs, default 120; 0 turns it off),
// BATON_LEASE_TTL (seconds a claim on a run may go without its record, default 300),
// BATON_DRAIN_TIMEOUT (seconds to finish accepted work on SIGTERM, default 25),
// BATON_WRITE_BUDGET_PER_MINUTE / _PER_HOUR / _RESERVE / _NOTICE_AFTER (the write budget per
// installation, write-budget.ts; shared by replicas through REDIS_URL, as Probot's throttling is).
import { run } from 'probot';
import { batonApp } from './app.ts';
import { drain, drainTimeoutFromEnv } from './drain.ts';
import { batonOctokit } from './octokit.ts';
import { writeBudgetFromEnv } from './write-budget.ts';
import type { RunService } from './runs.ts';
import type { Sweeper } from './sweeper.ts';

const drainMs = drainTimeoutFromEnv(process.env.BATON_DRAIN_TIMEOUT);
let runs: RunService | undefined;
let sweeper: Sweeper | undefined;
const server = await run(
  batonApp({
    onReady: (r, s) => {
      runs = r;
      sweeper = s;
    },
  }),
  { Octokit: batonOctokit({ writeBudget: writeBudgetFromEnv(process.env) }) },
);

process.once('SIGTERM', () => {
  void (async () => {
    sweeper?.stop();
    await server.stop(); // no new deliveries
    const left = runs ? await drain(runs, drainMs) : 0;
    if (left) console.error(`baton: stopped with ${left} accepted deliveries still being worked on; the sweep picks their runs up from GitHub`);
    process.exit(0);
  })();
});
