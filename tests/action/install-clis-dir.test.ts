// Where mode install-clis puts the agent CLIs: the folder the sandbox setup made for them
// (BATON_CLI_DIR, from GITHUB_ENV), else the job's temp folder; a relative path is refused,
// not resolved against whatever folder the step happens to run in.
import { describe, expect, it } from 'vitest';
import { cliDir } from '../../src/action/modes/install-clis.ts';
import { fenceNotice } from '../../src/action/modes/sandbox-setup.ts';

describe('the agent CLIs folder', () => {
  it("is the fence's folder when the setup step made one, else $RUNNER_TEMP/baton-clis", () => {
    expect(cliDir({ BATON_CLI_DIR: '/home/runner/work/baton-clis', RUNNER_TEMP: '/home/runner/work/_temp' })).toBe('/home/runner/work/baton-clis');
    expect(cliDir({ RUNNER_TEMP: '/home/runner/work/_temp' })).toBe('/home/runner/work/_temp/baton-clis');
    expect(() => cliDir({ BATON_CLI_DIR: 'baton-clis', RUNNER_TEMP: '/t' })).toThrow(/BATON_CLI_DIR must be an absolute path/);
    expect(() => cliDir({})).toThrow(/needs RUNNER_TEMP/);
  });

  it("the fence step's log line names what is in force and why the rest is not", () => {
    expect(fenceNotice(['agent-user', 'packet-filter', 'resource-limits'], [])).toBe('baton sandbox: in force: agent-user, packet-filter, resource-limits');
    expect(fenceNotice([], [{ protection: 'agent-user', reason: 'useradd is not installed' }])).toBe('baton sandbox: nothing of the fence is in force; agent-user missing (useradd is not installed)');
  });
});
