// The Action's inputs, as the runner passes them (INPUT_<NAME> variables), checked once.
import * as core from '@actions/core';
import { join } from 'node:path';
import { GITHUB_TOKEN_LOGIN } from '../hosts/github/workflow-files.ts';

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
  /** modes run/apply: who baton is on GitHub (only its comments carry trusted run state). */
  botLogin: string;
  /** modes run/apply: optional HMAC key of the state block. */
  stateSecret: string;
  /** modes run/apply: file name of the worker workflow in .github/workflows. */
  workerWorkflow: string;
  /** modes run/apply: keep the branches of finished runs (never delete them). */
  keepBranches: boolean;
  /** mode apply: how the agent job ended (`needs.agent.result`). */
  conclusion: string;
}

export class InputError extends Error {}

export function readInputs(env: NodeJS.ProcessEnv, modes: string[]): Inputs {
  const mode = core.getInput('mode').trim();
  if (!mode) throw new InputError(`the \`mode\` input is required: one of ${modes.join(', ')}`);
  if (!modes.includes(mode)) throw new InputError(`unknown mode ${JSON.stringify(mode)}; this version of baton has ${modes.join(', ')}`);
  const token = core.getInput('token');
  if (token) core.setSecret(token);
  const stateSecret = core.getInput('state-secret');
  if (stateSecret) core.setSecret(stateSecret);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const temp = env.RUNNER_TEMP || join(workspace, '..');
  return {
    mode,
    task: core.getInput('task'),
    token,
    resultDir: core.getInput('result-dir') || join(temp, 'baton-result'),
    path: core.getInput('path') || '.agents/workflows',
    workspace,
    botLogin: core.getInput('bot-login') || GITHUB_TOKEN_LOGIN,
    stateSecret,
    workerWorkflow: core.getInput('worker-workflow') || 'baton-worker.yml',
    conclusion: core.getInput('conclusion'),
    keepBranches: flag('keep-branches'),
  };
}

/** A true/false input (empty: false); anything else is refused with its name. */
function flag(name: string): boolean {
  const v = core.getInput(name).trim().toLowerCase();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw new InputError(`the \`${name}\` input must be "true" or "false", got ${JSON.stringify(core.getInput(name))}`);
}
