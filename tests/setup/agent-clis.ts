// Global setup of the `contract` project (vitest.config.ts): the contract tests run the real
// agent CLIs, so they install them first, at the versions baton pins, into the gitignored
// .cache/agent-clis/ (npm registry, ~1.5 GB the first time; a moment once there).
// An install that fails fails the run, before any test: never a contract test that passes
// or is skipped without its CLI.
import { installAgentClisReporting } from '../../scripts/agent-clis/install.ts';

export default async function setup(): Promise<void> {
  await installAgentClisReporting();
}
