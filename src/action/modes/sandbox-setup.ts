// mode: sandbox-setup — the agent sandbox's fence, set up as root before sudo is dropped
// (src/agents/sandbox/setup.ts): the agent's user and the sudoers rule that lets the worker
// start processes as it, the packet filter, and permissions giving the agent its checkout and
// nothing else of the worker's. The worker workflow runs it from a `run:` step as
// `sudo -E "$BATON_NODE" "$BATON_ENTRY"` (INPUT_MODE=sandbox-setup); SUDO_USER names the worker's user.
import * as core from '@actions/core';
import { join } from 'node:path';
import { setupFence } from '../../agents/sandbox/setup.ts';
import type { Inputs } from '../inputs.ts';

export async function sandboxSetupMode(inputs: Inputs): Promise<void> {
  const runnerUser = process.env.SUDO_USER;
  if (!runnerUser || process.getuid?.() !== 0) {
    throw new Error('mode `sandbox-setup` runs as root through sudo from the runner user (`sudo -E "$BATON_NODE" "$BATON_ENTRY"`), before sudo is dropped');
  }
  const tempDir = process.env.RUNNER_TEMP || join(inputs.workspace, '..', '_temp');
  const started = Date.now();
  const { state, files } = setupFence({ runnerUser, workspace: inputs.workspace, tempDir });
  core.info(`baton sandbox: the agent runs as ${state.user.name} (uid ${state.user.uid}); packet filter ${files.ruleset}; sudo rule ${files.sudoers ?? '(none: the worker is root)'}; ${Date.now() - started} ms`);
}
