// `npm start`: the app with Probot's standard environment — APP_ID, PRIVATE_KEY or
// PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, and GHE_HOST / GHE_PROTOCOL to point it at
// GitHub Enterprise Server (or the emulator). Optional: BATON_WORKER_WORKFLOW,
// BATON_STATE_SECRET (the HMAC key of the state block; derived from the private key when unset),
// BATON_SWEEP_INTERVAL (seconds between sweeps of open runs, default 120; 0 turns it off).
import { run } from 'probot';
import { batonApp } from './app.ts';
import { batonOctokit } from './octokit.ts';

await run(batonApp(), { Octokit: batonOctokit() });
