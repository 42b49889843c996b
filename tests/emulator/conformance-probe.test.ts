// The conformance kit's runner probe (scripts/conformance/probe/, ISSUE U5): the probe script
// run on this machine and inside the emulator's sandboxed runner prints every fact the
// comparer reads; the comparer, on a recorded sample, finds the one difference there is; and
// the `--repo --runner-probe` path, against an emulator posing as GitHub, runs the probe on
// all three images from a scratch branch and leaves the default branch as it found it.
// Nothing here reaches the network. The emulator's runner sandbox needs root.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareProbes, probeSummary, probeTable } from '../../scripts/conformance/probe/compare-facts.ts';
import { FACTS, parseProbe, PROBE_IMAGES, type Facts } from '../../scripts/conformance/probe/facts.ts';
import type { ProbeResult } from '../../scripts/conformance/probe/run-probe.ts';
import { settleProbe } from '../../scripts/conformance/probe/settle.ts';
import { PROBE_SCRIPT, probeWorkflow } from '../../scripts/conformance/probe/workflow.ts';
import { githubTarget, SANDBOX_MARKER } from '../../scripts/conformance/targets/github.ts';
import { unknownsList } from '../../scripts/conformance/unknowns.ts';
import { withActions, type ActionsRunner } from './actions/index.ts';
import { RUNNER_SUDOERS } from './actions/sandbox.ts';
import { startEmulator, type Emulator } from './emulator.ts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/conformance/probe/runner-probe.sh', import.meta.url));

/** The fact names in the order the script printed them. */
function printedNames(text: string): string[] {
  return Object.keys((JSON.parse(text) as { facts: Record<string, unknown> }).facts);
}

describe('runner-probe.sh', () => {
  it('prints every fact the comparer reads, each a string, on this machine', async () => {
    const { stdout } = await run('bash', [SCRIPT]);
    expect(printedNames(stdout)).toEqual([...FACTS]);
    const facts = parseProbe(stdout, 'this machine');
    expect(facts.uid).toBe(String(process.getuid!()));
    expect(facts.arch).toBe((await run('uname', ['-m'])).stdout.trim());
  });

  it('runs with nothing but PATH, as on a bare image before any setup', async () => {
    const { stdout } = await run('/usr/bin/env', ['-i', 'PATH=/usr/bin:/bin', 'bash', SCRIPT]);
    const facts = parseProbe(stdout, 'a bare environment');
    // What the environment does not give is said so, never guessed.
    expect({ temp: facts['runner.temp'], environment: facts['runner.environment'] }).toEqual({ temp: 'absent', environment: 'absent' });
  });

  it('goes into the workflow verbatim: one job per image, each uploading its own artifact, on its scratch branch only', () => {
    const yaml = probeWorkflow('baton-conformance/runner-probe-x');
    for (const image of PROBE_IMAGES) {
      expect(yaml).toContain(`    runs-on: ${image}\n`);
      expect(yaml).toContain(`          name: runner-probe-${image}\n`);
    }
    expect(yaml).toContain("on:\n  push:\n    branches: ['baton-conformance/runner-probe-x']\n");
    expect(yaml.split(PROBE_SCRIPT.split('\n').find((l) => l.startsWith('fact user'))!)).toHaveLength(PROBE_IMAGES.length + 1);
    expect(() => probeWorkflow('b', `${PROBE_SCRIPT}echo \${{ secrets.X }}\n`)).toThrow('must not contain');
  });
});

describe('reading a probe', () => {
  const sample = (facts: Partial<Record<string, unknown>>) => JSON.stringify({ schema: 'baton-runner-probe/1', facts });
  it('refuses output without every fact, with a fact that is no string, or with a fact it does not know, saying which and where', async () => {
    const full = (JSON.parse(await readFile(new URL('./fixtures/runner-probe-sample.json', import.meta.url), 'utf8')) as { facts: Facts }).facts;
    expect(() => parseProbe(sample({ ...full, 'nft.json': undefined }), 'runner-probe-ubuntu-22.04')).toThrow('runner-probe-ubuntu-22.04: fact nft.json is missing');
    expect(() => parseProbe(sample({ ...full, uid: 1001 }), 'a')).toThrow('a: fact uid is not a string (number)');
    expect(() => parseProbe(sample({ ...full, extra: 'x' }), 'a')).toThrow('a: facts the comparer does not know: extra');
    expect(() => parseProbe('{"schema":"other","facts":{}}', 'a')).toThrow('a: schema "other", expected baton-runner-probe/1');
    expect(() => parseProbe('not json', 'a')).toThrow("a: the probe's output is not JSON");
  });
});

describe('the comparer', () => {
  it('on a recorded sample with one difference, names that one fact on that one image, and only shows the machine-bound ones', async () => {
    const recorded = parseProbe(await readFile(new URL('./fixtures/runner-probe-sample.json', import.meta.url), 'utf8'), 'the sample');
    const emulator: ProbeResult = Object.fromEntries(PROBE_IMAGES.map((i) => [i, recorded]));
    const github: ProbeResult = Object.fromEntries(PROBE_IMAGES.map((i) => [i, { ...recorded, kernel: '6.8.0-1021-azure' }]));
    github['ubuntu-24.04'] = { ...(github['ubuntu-24.04'] as Facts), 'apparmor.restrict_unprivileged_userns': '1' };
    const rows = compareProbes(github, emulator);
    const verdicts = rows.flatMap((r) => PROBE_IMAGES.map((i) => [r.fact, i, r.verdicts[i]]));
    expect(verdicts.filter(([, , v]) => v === 'differ')).toEqual([['apparmor.restrict_unprivileged_userns', 'ubuntu-24.04', 'differ']]);
    expect(rows.find((r) => r.fact === 'kernel')!.verdicts).toEqual({ 'ubuntu-24.04': 'shown', 'ubuntu-22.04': 'shown', 'ubuntu-24.04-arm': 'shown' });
    expect(rows.find((r) => r.fact === 'sudoers.runner.rule')!.verdicts['ubuntu-22.04']).toBe('match');
    const table = probeTable(rows);
    expect(table).toContain('| apparmor.restrict_unprivileged_userns | absent | differ: 1 | match | match |');
    expect(table).toContain('Differ or missing: apparmor.restrict_unprivileged_userns on ubuntu-24.04.');
  });

  it('says an image that gave no facts is missing, and why', async () => {
    const recorded = parseProbe(await readFile(new URL('./fixtures/runner-probe-sample.json', import.meta.url), 'utf8'), 'the sample');
    const emulator: ProbeResult = Object.fromEntries(PROBE_IMAGES.map((i) => [i, recorded]));
    const rows = compareProbes({ ...emulator, 'ubuntu-24.04-arm': { missing: 'no artifact runner-probe-ubuntu-24.04-arm: no runner picked the job up' } }, emulator);
    expect(rows.every((r) => r.verdicts['ubuntu-24.04-arm'] === 'missing' && r.verdicts['ubuntu-24.04'] !== 'differ')).toBe(true);
    expect(rows[0]!.github!['ubuntu-24.04-arm']).toBe('missing: no artifact runner-probe-ubuntu-24.04-arm: no runner picked the job up');
  });
});

describe('npm run conformance -- --emulator --runner-probe', () => {
  it("prints the emulator's runner's facts, and writes them as JSON that makes no claim about GitHub", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-probe-'));
    try {
      const out = join(dir, 'probe.json');
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/conformance/main.ts', '--emulator', '--runner-probe', '--out', out], { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { ...process.env, GITHUB_TOKEN: '' } });
      expect(stdout).toContain('| fact | judged | emulator |');
      expect(stdout).toContain('| user | yes | runner |');
      expect(stdout).toContain(`| sudoers.runner.rule | yes | ${RUNNER_SUDOERS.trim()} |`);
      expect(stdout).toContain("Emulator only: the emulator's runner's answers; no claim about GitHub's runners.");
      const json = JSON.parse(await readFile(out, 'utf8')) as { claimAboutGitHub: boolean; github: unknown; emulator: ProbeResult };
      expect(json.claimAboutGitHub).toBe(false);
      expect(json.github).toBeNull();
      for (const image of PROBE_IMAGES) expect(Object.keys(json.emulator[image]!)).toEqual([...FACTS]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the unknowns list shows U5 with the probe\'s answer', async () => {
    const recorded = parseProbe(await readFile(new URL('./fixtures/runner-probe-sample.json', import.meta.url), 'utf8'), 'the sample');
    const rows = compareProbes(null, Object.fromEntries(PROBE_IMAGES.map((i) => [i, recorded])));
    const list = unknownsList([], false, { summary: probeSummary(rows) });
    expect(list).toContain(`  - runner probe: the emulator's runner answered ${FACTS.length} facts on 3 images (user runner, sudoers.runner.rule runner ALL=(ALL) NOPASSWD:ALL, program.nft /usr/sbin/nft, apparmor.restrict_unprivileged_userns absent…; table below)`);
  });
});

describe("the probe on the emulator's runner, and through --repo on an emulator posing as GitHub", () => {
  let emu: Emulator;
  let runner: ActionsRunner;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    // Sandboxed as the kit's own emulator target is: the two runners model the same machine.
    const actions = withActions({ triggerOnWebhooks: true, sandbox: true });
    emu = await startEmulator({ appPublicKey: publicKey, plugins: [actions.plugin] });
    runner = actions.runner;
    await emu.createRepo('acme', 'sandbox', { 'README.md': '# sandbox\n' });
    emu.repo('acme', 'sandbox').description = `scratch repository for ${SANDBOX_MARKER}`;
    env = { BATON_CONFORMANCE_APP_ID: String(emu.store.app.id), BATON_CONFORMANCE_PRIVATE_KEY: privateKey, GITHUB_TOKEN: emu.auth.userToken('acme') };
  });
  afterAll(async () => emu.close());

  it('runs on all three images from a scratch branch, matches the emulator on every judged fact, and leaves the default branch and no run behind', async () => {
    const main = (await emu.git('acme', 'sandbox').listRefs('refs/heads/main'))[0]!.sha;
    const settle = async () => {
      await runner.idle();
      return true;
    };
    const target = await githubTarget({ owner: 'acme', repo: 'sandbox', apiUrl: emu.apiUrl, env, settle });
    const { github, emulator, rows } = await settleProbe(target, (line) => {
      throw new Error(`unexpected log: ${line}`);
    });
    for (const image of PROBE_IMAGES) {
      // Inside the emulator's sandbox: the runner user with GitHub's sudo rule, as the fence step's guard expects.
      expect(emulator[image]).toMatchObject({ user: 'runner', 'runner.environment': 'github-hosted', 'sudoers.runner.rule': RUNNER_SUDOERS.trim(), 'sudo.passwordless': 'yes' });
      expect(github![image]).toMatchObject({ user: 'runner' });
    }
    expect(probeTable(rows)).toContain('Every judged fact matches on every image.');
    // The run was a push of the kit's scratch branch; the branch and the run are gone, main never moved.
    expect((await emu.git('acme', 'sandbox').listRefs('refs/heads/')).map((r) => [r.ref, r.sha])).toEqual([['refs/heads/main', main]]);
    expect([...runner.store.runs.values()]).toEqual([]);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 240_000);
});
