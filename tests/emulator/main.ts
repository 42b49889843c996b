/**
 * The emulator on its own, for people and other programs:
 *
 *   npx tsx tests/emulator/main.ts --port 0 [--webhook-url URL] [--webhook-secret S]
 *                                  [--action OWNER/REPO=DIR …]
 *
 * prints `listening http://127.0.0.1:<port>` and serves installation 1 with the
 * repository acme/widgets (default branch main, one commit). Any well-formed RS256 app
 * JWT gets installation tokens, so a Probot app with GHE_HOST=127.0.0.1:<port> and
 * GHE_PROTOCOL=http works against it. Workflow dispatches run on the emulator's runner;
 * `uses: baton-dev/baton@…` runs this checkout's Action (more with --action).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withActions } from './actions/index.ts';
import { batonActionMap } from './actions/baton-action.ts';
import { startEmulator } from './emulator.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'webhook-url': { type: 'string' },
    'webhook-secret': { type: 'string' },
    action: { type: 'string', multiple: true, default: [] },
  },
});

const actions: Record<string, string> = batonActionMap(fileURLToPath(new URL('../..', import.meta.url)));
for (const spec of values.action) {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--action takes OWNER/REPO=DIR, got ${JSON.stringify(spec)}`);
  actions[spec.slice(0, eq)] = spec.slice(eq + 1);
}

const emulator = await startEmulator({
  port: Number(values.port),
  plugins: [withActions({ actions }).plugin],
  ...(values['webhook-url'] === undefined ? {} : { webhookUrl: values['webhook-url'] }),
  ...(values['webhook-secret'] === undefined ? {} : { webhookSecret: values['webhook-secret'] }),
});
await emulator.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
console.log(`listening ${emulator.url}`);

const stop = () => {
  void emulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
