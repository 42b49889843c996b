// The runner's sandbox (sandbox.ts) running the worker workflow `baton init` writes, up to
// the agent: the job runs as `runner` with GitHub's sudoers rule in namespaces of its own, so
// the fence step (the bundled Action's mode sandbox-setup, through `sudo -E`) really sets the
// fence up, the drop really drops sudo, and a probe step in place of `baton agent` looks at
// what the agent would get. Images that lack nft, useradd or sudo get what they can, a
// warning saying what is missing, and a job that goes on. The machine's users, /etc and
// firewall are checked untouched. Needs root (the test fails saying so; it never skips).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_REF } from '../../../src/names.ts';
import { workerWorkflow } from '../../../src/init/workflows.ts';
import { batonActionMap } from './baton-action.ts';
import { latestJobs, type RunRecord } from './records.ts';
import { ActionsRunner } from './runner.ts';
import { ACTOR, fakeHost, tempRepo, type TempRepo } from './testing.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FAKE_AGENTS = fileURLToPath(new URL('../../fixtures/fake-agents', import.meta.url));

/**
 * In place of `baton agent` (and the upload after it): what the agent's side of the job looks
 * like. A program the worker puts in the CLIs' folder (as install-clis links the CLI there)
 * is run, and written to, as the agent's user through the setup's own sudo rule.
 */
const PROBE = `      - name: probe
        run: |
          echo "probe:user=$(id -un)"
          if sudo -n true 2>/dev/null; then echo "probe:root=yes"; else echo "probe:root=no"; fi
          if [ -f /etc/baton/fence.json ]; then echo "probe:fence=$(tr -d '\\n' < /etc/baton/fence.json)"; else echo "probe:fence=none"; fi
          echo "probe:cli-dir=$BATON_CLI_DIR"
          case ":$PATH:" in *":$BATON_CLI_DIR/bin:"*) echo "probe:on-path=yes" ;; *) echo "probe:on-path=no" ;; esac
          if [ -n "$BATON_CLI_DIR" ]; then
            printf '#!/bin/sh\\necho the-cli-ran\\n' > "$BATON_CLI_DIR/bin/some-cli" && chmod 755 "$BATON_CLI_DIR/bin/some-cli"
            echo "probe:agent-runs=$(sudo -n -u baton-agent "$BATON_CLI_DIR/bin/some-cli" 2>&1)"
            if sudo -n -u baton-agent /bin/sh -c 'echo x > "$1/bin/some-cli"' - "$BATON_CLI_DIR" 2>/dev/null; then echo "probe:agent-changes-cli=yes"; else echo "probe:agent-changes-cli=no"; fi
            if sudo -n -u baton-agent /bin/sh -c 'touch "$1/planted"' - "$BATON_CLI_DIR" 2>/dev/null; then echo "probe:agent-adds=yes"; else echo "probe:agent-adds=no"; fi
            if sudo -n -u baton-agent ls "$RUNNER_TEMP" >/dev/null 2>&1; then echo "probe:agent-reads-temp=yes"; else echo "probe:agent-reads-temp=no"; fi
          fi
`;

/** The worker workflow `baton init` writes for claude-code, its agent step replaced by the probe. */
function probedWorker(): string {
  const text = workerWorkflow({ mode: 'app', actionRef: ACTION_REF, backends: ['claude-code'], appToken: false });
  const cut = text.indexOf('      - name: baton agent');
  expect(cut).toBeGreaterThan(0);
  return text.slice(0, cut) + PROBE;
}

/** What the machine running the tests must still be after every job. */
function machine(): string {
  const tables = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });
  return JSON.stringify({
    passwd: readFileSync('/etc/passwd', 'utf8'),
    group: readFileSync('/etc/group', 'utf8'),
    sudoers: readdirSync('/etc/sudoers.d').sort(),
    baton: existsSync('/etc/baton'),
    agentHome: existsSync('/home/baton-agent'),
    tables,
  });
}

let repo: TempRepo | undefined;
let runner: ActionsRunner | undefined;
afterEach(async () => {
  await runner?.close();
  await repo?.cleanup();
  runner = undefined;
  repo = undefined;
});

async function runWorker(without: string[] = []): Promise<{ run: RunRecord; log: string; probe: Record<string, string> }> {
  repo = await tempRepo({ 'README.md': '# widgets\n', '.github/workflows/baton-worker.yml': probedWorker() });
  runner = new ActionsRunner(fakeHost(repo), {
    actions: batonActionMap(ROOT),
    // The fake claude on PATH at the pinned version: the install step finds it and installs nothing.
    env: { PATH: `${FAKE_AGENTS}:${process.env.PATH}` },
    sandbox: { without },
  });
  const before = machine();
  const run = await runner.dispatch({ owner: 'acme', repo: 'widgets', workflow: 'baton-worker.yml', ref: 'main', inputs: { run: 'r-1', step: 'implement', attempt: '1', base: 'main', task: 'x' }, actor: ACTOR });
  await runner.idle();
  expect(machine(), 'the machine running the tests is untouched').toBe(before);
  const log = runner.logs(run.id);
  const probe = Object.fromEntries([...log.matchAll(/^probe:([\w-]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  return { run: runner.store.runs.get(run.id)!, log, probe };
}

function step(run: RunRecord, name: string): string | null | undefined {
  return latestJobs(run)[0]!.steps.find((s) => s.name.startsWith(name))?.conclusion;
}

describe("the runner's sandbox, running the worker workflow's steps as GitHub's runner user", () => {
  it('sets the fence up through sudo, drops sudo, and gives the agent a CLI folder it can run but not change', async () => {
    const { run, log, probe } = await runWorker();
    expect(run.conclusion, log).toBe('success');
    expect(step(run, 'Fence the agent')).toBe('success');
    expect(log).toContain('::notice::baton sandbox: in force: agent-user, packet-filter, resource-limits');
    expect(probe.user).toBe('runner');
    expect(probe.root, 'sudo dropped').toBe('no');
    const fence = JSON.parse(probe.fence!) as { user: { name: string }; runner: string; tools: string; missing: unknown[] };
    expect(fence).toMatchObject({ user: { name: 'baton-agent' }, runner: 'runner', missing: [] });
    // The install step installed (nothing: the pinned fake is on PATH) into the fence's folder, outside RUNNER_TEMP.
    expect(probe['cli-dir']).toBe(fence.tools);
    expect(probe['on-path']).toBe('yes');
    expect(probe['agent-runs']).toBe('the-cli-ran');
    expect(probe['agent-changes-cli']).toBe('no');
    expect(probe['agent-adds']).toBe('no');
    expect(probe['agent-reads-temp']).toBe('no');
  }, 60_000);

  it('without nft: the user, its sudo rule and the permissions are set up, the packet filter is reported missing, and the job goes on', async () => {
    const { run, log, probe } = await runWorker(['nft']);
    expect(run.conclusion, log).toBe('success');
    expect(log).toMatch(/::warning::baton sandbox: in force: agent-user, resource-limits; packet-filter missing \(nft is not installed on this runner \(package nftables\)/);
    const fence = JSON.parse(probe.fence!) as { missing: Array<{ protection: string; reason: string }> };
    expect(fence.missing.map((m) => m.protection)).toEqual(['packet-filter']);
    expect(probe.root).toBe('no');
    expect(probe['agent-runs']).toBe('the-cli-ran');
    expect(probe['agent-changes-cli']).toBe('no');
  }, 60_000);

  it('without useradd: no agent user and no fence record, a warning naming what is missing, and the job goes on', async () => {
    const { run, log, probe } = await runWorker(['useradd']);
    expect(run.conclusion, log).toBe('success');
    expect(log).toMatch(/::warning::baton sandbox: nothing of the fence is in force; agent-user missing \(useradd is not installed/);
    expect(probe.fence).toBe('none');
    expect(probe.root).toBe('no');
    // The CLIs go where they go without a fence: the job's temp folder.
    expect(probe['cli-dir']).toBe('');
  }, 60_000);

  it('without visudo: no sudo rule for the agent (agent-user and limits missing), the packet filter still loaded, and the job goes on', async () => {
    const { run, log, probe } = await runWorker(['visudo']);
    expect(run.conclusion, log).toBe('success');
    expect(log).toMatch(/::warning::baton sandbox: in force: packet-filter; agent-user missing \(visudo is not installed/);
    expect(probe.root).toBe('no');
    expect(probe['agent-runs']).not.toBe('the-cli-ran');
  }, 60_000);

  it('without sudo: the fence and the drop are skipped with a warning, and the job goes on', async () => {
    const { run, log, probe } = await runWorker(['sudo']);
    expect(run.conclusion, log).toBe('success');
    expect(log).toContain('::warning title=baton sandbox::not set up');
    expect(probe.fence).toBe('none');
  }, 60_000);
});
