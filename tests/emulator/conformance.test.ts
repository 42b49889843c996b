// The conformance kit (scripts/conformance) against the emulator only: every scenario answers
// as FIDELITY.md and readings.ts say, under every value of its reading, and the kit's `--repo`
// path (App JWT → installation token, the sandbox guard) runs against an emulator posing as
// GitHub on 127.0.0.1. Nothing here reaches the network.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, type Row } from '../../scripts/conformance/compare.ts';
import { runScenario } from '../../scripts/conformance/runner.ts';
import { tokenPullRequestRuns } from '../../scripts/conformance/scenarios/actions.ts';
import { forkShaRef, forkSuiteHeadBranch } from '../../scripts/conformance/scenarios/forks.ts';
import { SCENARIOS } from '../../scripts/conformance/scenarios/index.ts';
import { secondaryLimitIdentity } from '../../scripts/conformance/scenarios/rate-limits.ts';
import { githubTarget, SANDBOX_MARKER } from '../../scripts/conformance/targets/github.ts';
import { withActions, type ActionsRunner } from './actions/index.ts';
import { startEmulator, type Emulator } from './emulator.ts';
import { DEFAULT_READINGS, READING_VALUES, type Readings } from './readings.ts';

const run = promisify(execFile);
const fidelity = await readFile(new URL('./FIDELITY.md', import.meta.url), 'utf8');
/** The "behaviour" cell of every table row of FIDELITY.md. */
const fidelityRows = new Set([...fidelity.matchAll(/^\| ([^|]+?) \|/gm)].map((m) => m[1]!).filter((b) => b !== 'behaviour' && !b.startsWith('---')));
/** Scenarios whose routes the emulator does not serve: they are skipped there, and only there. */

describe('the conformance scenarios against the emulator', () => {
  let rows: Row[];
  beforeAll(async () => {
    rows = await compare(SCENARIOS, null, (line) => {
      throw new Error(`unexpected log: ${line}`);
    });
  }, 240_000);

  it('observe, for each reading, the value the emulator was started with, under every value', () => {
    for (const scenario of SCENARIOS.filter((s) => 'reading' in s.assumption)) {
      const key = (scenario.assumption as { reading: keyof Readings }).reading;
      const row = rows.find((r) => r.scenario === scenario.name)!;
      expect(row.github).toBeNull();
      expect(row.readings!.map((r) => r.value)).toEqual(READING_VALUES[key]);
      for (const { value, outcome } of row.readings!) expect({ value, outcome }).toEqual({ value, outcome: expect.objectContaining({ reading: value }) });
      expect(row.emulator).toMatchObject({ reading: DEFAULT_READINGS[key] });
      expect(row.verdict).toBe('agree');
    }
  });

  it('answer as the FIDELITY.md row each names says', () => {
    for (const scenario of SCENARIOS.filter((s) => 'row' in s.assumption)) {
      const row = rows.find((r) => r.scenario === scenario.name)!;
      expect(fidelityRows, `FIDELITY.md has no row for ${scenario.name}`).toContain((scenario.assumption as { row: string }).row);
      expect({ scenario: scenario.name, answer: row.emulator }).toEqual({ scenario: scenario.name, answer: expect.objectContaining({ answer: scenario.claim }) });
      expect(row.verdict).toBe('agree');
    }
  });

  it('cover every reading of readings.ts', () => {
    const covered = new Set(SCENARIOS.flatMap((s) => ('reading' in s.assumption ? [s.assumption.reading] : [])));
    expect([...covered].sort()).toEqual(Object.keys(READING_VALUES).sort());
  });
});

describe('npm run conformance', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-conformance-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const kit = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/conformance/main.ts', ...args], { cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, GITHUB_TOKEN: '' } });

  it('--emulator prints the table and writes JSON that makes no claim about GitHub', async () => {
    const out = join(dir, 'conformance.json');
    const { stdout } = await kit(['--emulator', '--only', 'two concurrent creates of one ref', '--out', out]);
    expect(stdout).toContain('| scenario | assumption | github | emulator | verdict |');
    expect(stdout).toMatch(/\| two concurrent creates of one ref \| reading refCreateRace \(default already-exists\) \| no claim \(emulator only\) \| .*update-failed → loser: 422 Reference update failed \[update-failed\] \| agree \|/);
    // The unknowns U1–U8 (the runner probe is U5) follow, each with its scenario's answers or what to do by hand.
    expect(stdout.match(/^- U\d: /gm)).toEqual(['- U1: ', '- U2: ', '- U3: ', '- U4: ', '- U5: ', '- U6: ', '- U7: ', '- U8: ']);
    expect(stdout).toContain('- U5: The runner probe.');
    expect(stdout).toContain('  - scenario "two concurrent creates of one ref": emulator already-exists → loser: 422 Reference already exists [already-exists] ; update-failed → loser: 422 Reference update failed [update-failed]; verdict agree');
    expect(stdout).toContain('  - scenario "where a workflow-file change is refused": not run (--only)');
    // U1 and U4 need a second account or installation on GitHub: the kit says what to set up and run.
    expect(stdout.match(/^ {2}- against GitHub, by hand: .*/gm)).toEqual([expect.stringContaining('needs a second account'), expect.stringContaining("needs baton's App installed on a second account")]);
    expect(stdout.match(/^ {2}- by hand: /gm)).toBeNull();
    // --only runs no probe; the list still says how to run it against GitHub.
    expect(stdout).toContain('  - runner probe: not run in this run');
    expect(stdout).toContain('  - against GitHub: `npm run conformance -- --repo OWNER/REPO --runner-probe`');
    const json = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(json).toEqual({
      claimAboutGitHub: false,
      note: expect.stringContaining('no claim about GitHub'),
      repo: null,
      apiUrl: null,
      madeAt: expect.any(String),
      rows: [
        {
          scenario: 'two concurrent creates of one ref',
          assumption: { reading: 'refCreateRace' },
          claim: 'already-exists',
          github: null,
          emulator: { answer: 'loser: 422 Reference already exists', reading: 'already-exists' },
          readings: [
            { value: 'already-exists', outcome: { answer: 'loser: 422 Reference already exists', reading: 'already-exists' } },
            { value: 'update-failed', outcome: { answer: 'loser: 422 Reference update failed', reading: 'update-failed' } },
          ],
          verdict: 'agree',
        },
      ],
    });
  }, 60_000);

  it('asks for exactly one of --repo and --emulator', async () => {
    await expect(kit([])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('give exactly one of --repo and --emulator') });
  });
});

describe('--repo against an emulator posing as GitHub', () => {
  let emu: Emulator;
  let runner: ActionsRunner;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const actions = withActions({ triggerOnWebhooks: true });
    emu = await startEmulator({ appPublicKey: publicKey, readings: DEFAULT_READINGS, plugins: [actions.plugin] });
    runner = actions.runner;
    await emu.createRepo('acme', 'sandbox', { 'README.md': '# sandbox\n' });
    await emu.createRepo('acme', 'production', { 'README.md': '# production\n' });
    emu.repo('acme', 'sandbox').description = `scratch repository for ${SANDBOX_MARKER}`;
    // docs/conformance.md asks this of the sandbox.
    emu.store.allowActionsToCreatePullRequests('acme', 'sandbox');
    env = { BATON_CONFORMANCE_APP_ID: String(emu.store.app.id), BATON_CONFORMANCE_PRIVATE_KEY: privateKey, GITHUB_TOKEN: emu.auth.userToken('acme') };
  });
  afterAll(async () => emu.close());

  it('refuses a repository whose description does not mark it as a sandbox', async () => {
    await expect(githubTarget({ owner: 'acme', repo: 'production', apiUrl: emu.apiUrl, env })).rejects.toThrow(`acme/production is not marked as a sandbox`);
  });

  it('acts as the App through its JWT and installation token, and agrees with the emulator it poses as', async () => {
    // Between two looks at a workflow run: the runner's idleness, where GitHub needs a poll interval.
    const settle = async () => {
      await runner.idle();
      return true;
    };
    const target = await githubTarget({ owner: 'acme', repo: 'sandbox', apiUrl: emu.apiUrl, env, settle });
    expect(target.appPermissions.workflows).toBeUndefined();
    const rows = await compare(SCENARIOS, target, (line) => {
      throw new Error(`unexpected log: ${line}`);
    });
    expect(rows.map((r) => [r.scenario, r.verdict])).toEqual(
      // A fork's pull request needs a second account, which the kit does not hold against GitHub.
      // Nor a second installation of the App.
      SCENARIOS.map((s) => [s.name, s.name.startsWith('secondary rate limit') ? 'unobserved' : s === forkSuiteHeadBranch || s === forkShaRef || s === secondaryLimitIdentity ? 'skipped' : 'agree']),
    );
    // Everything the scenarios made is gone again: no scratch ref, the default branch without the scratch workflow.
    // A pull request stays (closed), and so do its refs/pull/N/*: GitHub deletes neither.
    const refs = (await emu.git('acme', 'sandbox').listRefs('refs/')).map((r) => r.ref);
    expect(refs.filter((r) => !r.startsWith('refs/pull/'))).toEqual(['refs/heads/main']);
    const workflows = await emu.git('acme', 'sandbox').lsTree('refs/heads/main', true, '.github/workflows');
    expect(workflows).toEqual([]);
    expect([...emu.store.repo('acme', 'sandbox')!.issues.values()].map((i) => [i.pull === undefined ? 'issue' : 'pull request', i.state])).toEqual([
      ['issue', 'closed'],
      ['issue', 'closed'],
      ['pull request', 'closed'],
    ]);
    // No workflow run is left: the scenarios deleted theirs (and their artifacts with them).
    expect([...runner.store.runs.values()].map((r) => r.workflowName)).toEqual([]);
    expect([...runner.store.artifacts.values()]).toEqual([]);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 240_000);

  it('npm run conformance -- --repo prints, for U1 and U4, what to set up and run by hand, and how to run the runner probe', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'baton-conformance-')), 'conformance.json');
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/conformance/main.ts', '--repo', 'acme/sandbox', '--api-url', emu.apiUrl, '--only', 'two concurrent creates of one ref', '--out', out], {
        cwd: new URL('../..', import.meta.url).pathname,
        env: { ...process.env, ...env },
      });
      expect(stdout).toMatch(/\| two concurrent creates of one ref \| reading refCreateRace \(default already-exists\) \| loser: 422 Reference already exists \[already-exists\] \| .* \| agree \|/);
      expect(stdout.match(/^- U\d: /gm)).toHaveLength(8);
      expect(stdout.match(/^ {2}- by hand: .*/gm)).toEqual([
        expect.stringMatching(/^ {2}- by hand: needs a second account: with it, fork the sandbox, push a commit to the fork only, .*`POST \/repos\/OWNER\/REPO\/git\/refs`/),
        expect.stringMatching(/^ {2}- by hand: needs baton's App installed on a second account .* post more than 80 issue comments .* with B's token/),
      ]);
      expect(stdout).toContain('  - against GitHub: `npm run conformance -- --repo OWNER/REPO --runner-probe`');
      // A run against GitHub does not spend hosted-runner minutes on the probe unless asked.
      expect(stdout).toContain('  - runner probe: not run in this run');
      expect(stdout).not.toContain('| fact |');
    } finally {
      await rm(dirname(out), { recursive: true, force: true });
    }
  }, 120_000);

  it('skips the GITHUB_TOKEN pull request scenario, naming the setting, where Actions may not open pull requests, and leaves nothing behind', async () => {
    emu.store.allowActionsToCreatePullRequests('acme', 'sandbox', false);
    try {
      const settle = async () => {
        await runner.idle();
        return true;
      };
      const target = await githubTarget({ owner: 'acme', repo: 'sandbox', apiUrl: emu.apiUrl, env, settle });
      const outcome = await runScenario(tokenPullRequestRuns, target, (line) => {
        throw new Error(`unexpected log: ${line}`);
      });
      expect(outcome).toEqual({ skipped: expect.stringContaining('"Allow GitHub Actions to create and approve pull requests"') });
      const refs = (await emu.git('acme', 'sandbox').listRefs('refs/heads/')).map((r) => r.ref);
      expect(refs).toEqual(['refs/heads/main']);
      expect(await emu.git('acme', 'sandbox').lsTree('refs/heads/main', true, '.github/workflows')).toEqual([]);
      expect([...runner.store.runs.values()]).toEqual([]);
    } finally {
      emu.store.allowActionsToCreatePullRequests('acme', 'sandbox', true);
    }
  }, 120_000);
});
