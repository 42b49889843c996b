// GitHub Actions for the emulator: the REST endpoints and a runner that executes
// workflow_dispatch runs — and, with `triggerOnWebhooks`, runs the emulator's events
// start — for real (git clones, shell steps, node actions, artifacts).
//
//   const actions = withActions({ actions: { 'acme/baton': actionDir } });
//   const emu = await startEmulator({ plugins: [actions.plugin] });
//   … dispatch through Octokit …
//   await actions.runner.idle();
//
// or, on an emulator already started: `const runner = installActions(emu, options)`.
import type { Emulator, EmulatorPlugin } from '../emulator.ts';
import type { ActionsHost } from './host.ts';
import { jobCheckRuns } from './job-checks.ts';
import { registerActionsRoutes } from './routes.ts';
import { ActionsRunner } from './runner.ts';
import type { RunnerOptions } from './types.ts';

export { ActionsRunner, type SkippedTrigger, type TriggeredRun } from './runner.ts';
export { GITHUB_TOKEN_LOGIN } from './triggers.ts';
export type { RunnerOptions } from './types.ts';
export type { ActionsHost } from './host.ts';

const runners = new WeakMap<Emulator, ActionsRunner>();

/** The emulator seen through what the runner needs. */
export function emulatorHost(emulator: Emulator): ActionsHost {
  return {
    apiUrl: emulator.apiUrl,
    serverUrl: emulator.webUrl,
    gitDir: (owner, repo) => emulator.gitDir(owner, repo),
    mintToken: (owner, repo, permissions) => emulator.auth.mint({ owner, repo, permissions }),
    revokeToken: (token) => emulator.auth.revoke(token),
    emit: (event, payload) => {
      const repository = payload.repository as { full_name?: string } | undefined;
      const [owner, repo] = (repository?.full_name ?? '').split('/');
      emulator.webhooks.emit(event, payload, { ...(owner && repo ? { owner, repo } : {}) });
    },
    repository: (owner, repo) => emulator.shapes.repository(emulator.repo(owner, repo)),
    installation: (owner, repo) => {
      const id = emulator.repo(owner, repo).installationId;
      return { id, node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${id}` };
    },
    ...jobCheckRuns(emulator),
    tokenPullRequestRuns: () => emulator.readings.tokenPullRequestRuns,
    workflowRunAfterTokenDispatch: () => emulator.readings.workflowRunAfterTokenDispatch,
    customRefPushRuns: () => emulator.readings.customRefPushRuns,
  };
}

/** Registers the Actions routes and runner on a started emulator; closing the emulator stops runs. */
export function installActions(emulator: Emulator, options: RunnerOptions = {}): ActionsRunner {
  const existing = runners.get(emulator);
  if (existing) return existing;
  const runner = new ActionsRunner(emulatorHost(emulator), options);
  registerActionsRoutes(emulator, runner);
  runners.set(emulator, runner);
  if (options.triggerOnWebhooks) emulator.webhooks.onEmit((d) => runner.onWebhook(d.event, d.payload));
  // Runs hold workspaces and subprocesses: they end before the emulator's repos go away.
  const close = emulator.close.bind(emulator);
  emulator.close = async () => {
    await runner.close();
    await close();
  };
  return runner;
}

/** The runner installed on an emulator. */
export function actionsOf(emulator: Emulator): ActionsRunner {
  const runner = runners.get(emulator);
  if (!runner) throw new Error('Actions are not installed on this emulator: pass withActions().plugin to startEmulator');
  return runner;
}

/** A plugin for `startEmulator({ plugins })`, with the runner available once it ran. */
export function withActions(options: RunnerOptions = {}): { plugin: EmulatorPlugin; readonly runner: ActionsRunner } {
  let runner: ActionsRunner | undefined;
  return {
    plugin: (emulator) => {
      runner = installActions(emulator, options);
    },
    get runner(): ActionsRunner {
      if (!runner) throw new Error('the emulator has not started yet');
      return runner;
    },
  };
}
