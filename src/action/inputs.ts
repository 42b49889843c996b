// The Action's inputs, as the runner passes them (INPUT_<NAME> variables), checked once.
import * as core from '@actions/core';
import { join } from 'node:path';

export interface Inputs {
  mode: string;
  /** The DispatchWorker command, encoded by encodeTask (mode agent). */
  task: string;
  /** Masked in logs; the agent mode neither needs nor passes it on. */
  token: string;
  /** Where the agent mode writes the result artifact. */
  resultDir: string;
  /** Manifest file or folder to validate (mode validate), relative to the workspace. */
  path: string;
  /** The checkout: GITHUB_WORKSPACE. */
  workspace: string;
}

export class InputError extends Error {}

export function readInputs(env: NodeJS.ProcessEnv, modes: string[]): Inputs {
  const mode = core.getInput('mode').trim();
  if (!mode) throw new InputError(`the \`mode\` input is required: one of ${modes.join(', ')}`);
  if (!modes.includes(mode)) throw new InputError(`unknown mode ${JSON.stringify(mode)}; this version of baton has ${modes.join(', ')}`);
  const token = core.getInput('token');
  if (token) core.setSecret(token);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const temp = env.RUNNER_TEMP || join(workspace, '..');
  return {
    mode,
    task: core.getInput('task'),
    token,
    resultDir: core.getInput('result-dir') || join(temp, 'baton-result'),
    path: core.getInput('path') || '.agents/workflows',
    workspace,
  };
}
