// mode: locate — says where this Action's bundled entry point and node are (outputs
// `entry`, `node`), and nothing else. The worker workflow runs the agent from a `run:`
// step with them (`"$BATON_NODE" "$BATON_ENTRY"`), because the runner hands every `uses:`
// step's process its own tokens (ACTIONS_RUNTIME_TOKEN, the OIDC request token) and an
// agent started under that process could read them from /proc/<parent>/environ; a `run:`
// step's process holds none.
import * as core from '@actions/core';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Inputs } from '../inputs.ts';

export async function locateMode(_inputs: Inputs): Promise<void> {
  const entry = realpathSync(resolve(process.argv[1] ?? ''));
  core.setOutput('entry', entry);
  core.setOutput('node', process.execPath);
  core.info(`baton locate: ${process.execPath} ${entry}`);
}
