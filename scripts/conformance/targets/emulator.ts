/**
 * The emulator as a target: started in-process on 127.0.0.1 with the given readings and its
 * GitHub Actions runner (workflows run for real, and the events they cause start workflows, as
 * on GitHub), one repository like a fresh sandbox (a README and one workflow, Actions allowed
 * to create pull requests as docs/conformance.md asks of the sandbox), and the same four
 * identities a maintainer gives the kit for GitHub.
 */
import { generateKeyPairSync } from 'node:crypto';
import { withActions } from '../../../tests/emulator/actions/index.ts';
import { signAppJwt } from '../../../tests/emulator/app-jwt.ts';
import { startEmulator } from '../../../tests/emulator/emulator.ts';
import { OPERATIONS } from '../../../tests/emulator/openapi/operations.ts';
import { openForkPullRequest } from '../../../tests/emulator/forks.ts';
import type { Readings } from '../../../tests/emulator/readings.ts';
import type { LimitMet, Target } from '../types.ts';
import { kitOctokit } from './octokit.ts';

const OWNER = 'conformance';
const REPO = 'sandbox';
const OTHER_OWNER = 'conformance-two';

export interface EmulatorTargetOptions {
  /**
   * Run jobs in the runner's sandbox (tests/emulator/actions/sandbox.ts): as `runner`, with the
   * sudoers rule and the namespaces the emulator models GitHub's hosted runner with. The runner
   * probe asks for it, so that its answer is the model's, not this machine's. Needs root.
   */
  sandbox?: boolean;
}

export async function emulatorTarget(readings: Partial<Readings> = {}, options: EmulatorTargetOptions = {}): Promise<Target> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const actions = withActions({ triggerOnWebhooks: true, ...(options.sandbox === true ? { sandbox: true } : {}) });
  const emu = await startEmulator({ readings, appPublicKey: publicKey, plugins: [actions.plugin] });
  await emu.createRepo(OWNER, REPO, { 'README.md': '# sandbox\n', '.github/workflows/ci.yml': 'on: push\njobs: {}\n' });
  emu.store.allowActionsToCreatePullRequests(OWNER, REPO);
  const installation = emu.store.installation(OWNER);
  const limitsMet: LimitMet[] = [];
  const octokit = (auth: string) => kitOctokit(emu.apiUrl, auth, limitsMet);
  const app = octokit(emu.auth.issue(installation.id, installation.permissions, [`${OWNER}/${REPO}`]).token);
  // A second account with the App installed, made when first asked (one scenario asks, and an
  // emulator is started per reading value): U4 asks whether a limit met through one
  // installation holds for another.
  let second: Promise<{ octokit: ReturnType<typeof octokit>; owner: string; repo: string }> | undefined;
  const secondInstallation = () =>
    (second ??= emu.createRepo(OTHER_OWNER, REPO, { 'README.md': '# second installation\n' }).then(() => {
      const other = emu.store.installation(OTHER_OWNER);
      return { octokit: octokit(emu.auth.issue(other.id, other.permissions, [`${OTHER_OWNER}/${REPO}`]).token), owner: OTHER_OWNER, repo: REPO };
    }));
  const served = new Set(OPERATIONS);
  return {
    kind: 'emulator',
    owner: OWNER,
    repo: REPO,
    identities: { app, actor: app, appJwt: octokit(signAppJwt(emu.store.app.id, privateKey)), maintainer: octokit(emu.auth.userToken(OWNER)) },
    missing: {},
    appPermissions: { ...installation.permissions },
    serves: (route) => served.has(route),
    limitsMet,
    readings: emu.readings,
    async settle() {
      await actions.runner.idle();
      return true;
    },
    secondInstallation,
    openForkPullRequest: (o) => openForkPullRequest(emu, { owner: OWNER, repo: REPO, fork: 'conformance-fork', ...o }),
    async close() {
      const bugs = [...actions.runner.errors];
      await emu.close();
      // A runner crash or a refused webhook payload is the emulator's bug, never a GitHub answer.
      if (bugs.length > 0) throw new Error(`the emulator's Actions runner failed: ${bugs.join('; ')}`);
    },
  };
}
