// mode: sandbox-setup — the agent sandbox's fence, set up as root before sudo is dropped
// (src/agents/sandbox/setup.ts): the agent's user and the sudoers rule that lets the worker
// start processes as it, the packet filter, permissions giving the agent its checkout and
// nothing else of the worker's, and the folder the agent CLIs are installed into next.
// The worker workflow runs it from a `run:` step as `sudo -E "$BATON_NODE" "$BATON_ENTRY"`
// (INPUT_MODE=sandbox-setup); SUDO_USER names the worker's user.
//
// What the runner's image lacks (nft, useradd, sudo) is reported, not fatal: the job log
// and the job summary say which protections are in force and why the others are not, the
// worker's probe says the same in the step's record, and `sandbox: required` refuses to run
// without them. Only a call that could never work (not root, no SUDO_USER) fails the step.
import * as core from '@actions/core';
import { join } from 'node:path';
import type { Protection } from '../../engine/sandbox.ts';
import { FENCE_PROTECTIONS } from '../../agents/sandbox/fence.ts';
import { setupFence, type Missing } from '../../agents/sandbox/setup.ts';
import type { Inputs } from '../inputs.ts';

/** The variable mode install-clis reads: where the fence wants the agent CLIs. */
export const CLI_DIR_VARIABLE = 'BATON_CLI_DIR';

/** The job log's one line on the fence: what is in force, what is not and why. */
export function fenceNotice(enforced: readonly Protection[], missing: Missing): string {
  const on = enforced.length ? `in force: ${enforced.join(', ')}` : 'nothing of the fence is in force';
  const off = missing.map((m) => `${m.protection} missing (${m.reason})`);
  return `baton sandbox: ${[on, ...off].join('; ')}`;
}

export async function sandboxSetupMode(inputs: Inputs): Promise<void> {
  const runnerUser = process.env.SUDO_USER;
  if (!runnerUser || process.getuid?.() !== 0) {
    throw new Error('mode `sandbox-setup` runs as root through sudo from the runner user (`sudo -E "$BATON_NODE" "$BATON_ENTRY"`), before sudo is dropped');
  }
  const tempDir = process.env.RUNNER_TEMP || join(inputs.workspace, '..', '_temp');
  const started = Date.now();
  let missing: Missing;
  let detail: string;
  try {
    const { state, files, missing: lacking } = setupFence({ runnerUser, workspace: inputs.workspace, tempDir });
    missing = lacking;
    if (state) {
      // install-clis (after the drop) installs where the agent can run the CLIs but not change them.
      core.exportVariable(CLI_DIR_VARIABLE, state.tools);
      detail = `the agent runs as ${state.user.name} (uid ${state.user.uid}); record ${files.state}; packet filter ${files.ruleset ?? '(none)'}; sudo rule ${files.sudoers ?? '(none)'}; agent CLIs in ${state.tools}`;
    } else {
      detail = 'no agent user could be made: the worker runs the agent as itself';
    }
  } catch (err) {
    // A setup that failed half-way wrote no record: the worker runs the agent unfenced, and
    // says so; the job goes on rather than losing the attempt.
    missing = FENCE_PROTECTIONS.map((protection) => ({ protection, reason: `the sandbox setup failed: ${(err as Error).message}` }));
    detail = 'the setup failed; no fence record was written';
  }
  const enforced = FENCE_PROTECTIONS.filter((p) => !missing.some((m) => m.protection === p));
  const line = fenceNotice(enforced, missing);
  if (missing.length) core.warning(line);
  else core.notice(line);
  core.info(`${detail}; ${Date.now() - started} ms`);
  if (process.env.GITHUB_STEP_SUMMARY) {
    const rows = FENCE_PROTECTIONS.map((p) => {
      const m = missing.find((x) => x.protection === p);
      return `| ${p} | ${m ? `missing: ${m.reason.replace(/\|/g, '\\|').replace(/\n/g, ' ')}` : 'in force'} |`;
    });
    await core.summary.addRaw(['### baton sandbox', '', '| protection | |', '|---|---|', ...rows, ''].join('\n'), true).write();
  }
}
