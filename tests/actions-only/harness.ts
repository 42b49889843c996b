// Actions-only mode on the emulator, with no app process at all: the repository holds what
// `baton init --mode actions` wrote, events start baton.yml on the emulator's runner
// (`triggerOnWebhooks`), and every baton step — route, run, agent, apply — is the bundled
// Action (dist/action.js) mapped from `uses: baton-dev/baton@v1`, with the fake agent CLIs
// on PATH.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Octokit } from '@octokit/rest';
import { initCommand } from '../../src/cli/commands/init.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';
import type { Readings } from '../emulator/readings.ts';
import { withActions, type ActionsRunner } from '../emulator/actions/index.ts';
import { batonActionMap } from '../emulator/actions/baton-action.ts';
import { readdirSync, statSync } from 'node:fs';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FAKE_AGENTS = join(PROJECT_ROOT, 'tests', 'fixtures', 'fake-agents');

export interface TokenProbe {
  permissions: Record<string, string>;
  /** Status of a branch write attempted with the token right after it was minted. */
  writeStatus: number;
}

export interface ActionsOnly {
  emu: Emulator;
  runner: ActionsRunner;
  /** Files `baton init` wrote (path → text). */
  initFiles: Record<string, string>;
  /** Every read-only GITHUB_TOKEN minted for a job, probed with a write. */
  probes: TokenProbe[];
  /** How many times the fake agents have been started since the script was last set. */
  agentCalls(): number;
  /** A new script for the fake agents, from its first behaviour on (scenarios one after another). */
  rescript(agentScript: unknown[]): void;
  as(login: string): Octokit;
  settle(): Promise<void>;
  waitFor(what: string, ready: () => boolean | Promise<boolean>): Promise<void>;
  close(): Promise<void>;
}

function filesUnder(root: string, dir = root): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, filesUnder(root, full));
    else out[relative(root, full)] = readFileSync(full, 'utf8');
  }
  return out;
}

/** What `baton init` writes into an empty directory. */
export async function initFiles(args: string[]): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-init-'));
  try {
    const out: string[] = [];
    const code = await initCommand(args, { out: (t) => out.push(t), err: (t) => out.push(t), cwd: dir }, false);
    if (code !== 0) throw new Error(`baton init ${args.join(' ')} exited ${code}: ${out.join('\n')}`);
    return filesUnder(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ActionsOnlyOptions {
  init: string[];
  files: Record<string, string>;
  agentScript: unknown[];
  /**
   * For `baton init --app-token`: the repository's secrets APP_ID and APP_PRIVATE_KEY hold
   * the emulator's app and a private key whose public half the emulator checks JWTs with.
   */
  appSecrets?: boolean;
  /** Repository secrets a user forgot to add. */
  missingSecrets?: string[];
  /** Where `uses: baton-dev/baton@v1` finds the Action (default: this checkout). */
  actionDir?: string;
  /** More `uses:` the runner resolves (repo@ref → a directory): another release's baton Action (baton-action.ts). */
  actions?: Record<string, string>;
  /** Where GitHub is silent, which behaviour the emulator shows (tests/emulator/readings.ts). */
  readings?: Partial<Readings>;
  /**
   * false: the fake agent CLIs are not on the runner's PATH, so the worker's install step
   * installs them (from the Action's lockfiles) instead of finding them there.
   */
  fakeAgentsOnPath?: boolean;
  /** More environment for every step (an npm registry to install from, …). */
  env?: Record<string, string>;
  /**
   * Every job as GitHub's `runner` user in namespaces of its own (the runner's `sandbox`): the
   * worker workflow's fence step, sudo drop and fenced launch take their production path.
   */
  sandbox?: boolean | { ports?: number[]; without?: string[] };
}

export async function startActionsOnly(o: ActionsOnlyOptions): Promise<ActionsOnly> {
  const init = await initFiles(o.init);
  const steer = mkdtempSync(join(tmpdir(), 'baton-actions-only-'));
  const script = join(steer, 'agents.json');
  writeFileSync(script, JSON.stringify(o.agentScript));
  // Sandboxed, the fake agents run as another user (the job's, or the fence's agent user):
  // their steering folder is the test's channel to them, open to every user (they count
  // their invocations next to the script).
  if (o.sandbox) chmodSync(steer, 0o1777);
  const secrets: Record<string, string> = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test', CODEX_API_KEY: 'sk-codex-test', BATON_STATE_SECRET: 'actions-only-state-secret' };
  for (const name of o.missingSecrets ?? []) delete secrets[name];
  const key = o.appSecrets ? generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } }) : undefined;
  const actions = withActions({
    actions: { ...batonActionMap(o.actionDir ?? PROJECT_ROOT), ...o.actions },
    secrets,
    env: { PATH: [...(o.fakeAgentsOnPath === false ? [] : [FAKE_AGENTS]), process.env.PATH ?? ''].join(delimiter), FAKE_AGENT_SCRIPT: script, ...o.env },
    triggerOnWebhooks: true,
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
  });
  const emu = await startEmulator({ plugins: [actions.plugin], ...(key ? { appPublicKey: key.publicKey } : {}), ...(o.readings ? { readings: o.readings } : {}) });
  if (key) Object.assign(secrets, { APP_ID: String(emu.store.app.id), APP_PRIVATE_KEY: key.privateKey });
  const runner = actions.runner;

  const probes: TokenProbe[] = [];
  const probing = new Set<Promise<void>>();
  const mint = runner.host.mintToken.bind(runner.host);
  runner.host.mintToken = async (owner, repo, permissions) => {
    const token = await mint(owner, repo, permissions);
    if (permissions.contents !== 'write') {
      const probe = (async () => {
        const res = await fetch(`${emu.apiUrl}/repos/${owner}/${repo}/git/refs`, {
          method: 'POST',
          headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ref: 'refs/heads/baton/probe', sha: '0'.repeat(40) }),
        });
        probes.push({ permissions: { ...permissions }, writeStatus: res.status });
      })();
      probing.add(probe);
      await probe;
      probing.delete(probe);
    }
    return token;
  };

  await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n', ...init, ...o.files });
  emu.store.setRole('acme', 'widgets', 'alice', 'admin');

  const settle = async (): Promise<void> => {
    for (let i = 0; i < 1000; i++) {
      await runner.idle();
      if (![...runner.store.runs.values()].some((r) => r.status !== 'completed')) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the runner did not settle');
  };
  return {
    emu,
    runner,
    initFiles: init,
    probes,
    agentCalls: () => (existsSync(`${script}.count`) ? Number(readFileSync(`${script}.count`, 'utf8')) : 0),
    rescript(agentScript) {
      writeFileSync(script, JSON.stringify(agentScript));
      rmSync(`${script}.count`, { force: true });
    },
    as: (login) => new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken(login) }),
    settle,
    async waitFor(what, ready) {
      for (let i = 0; i < 1500; i++) {
        if (await ready()) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`gave up waiting for ${what}`);
    },
    async close() {
      await emu.close();
      rmSync(steer, { recursive: true, force: true });
      // A request of baton's that broke GitHub's description fails the test even if baton coped.
      emu.assertNoViolations();
    },
  };
}
