// mode: install-clis — installs the agent CLIs the worker workflow names (INPUT_CLIS, backend
// names) from this Action's lockfiles, with no package script run, into a folder of the
// job's, and puts only their executables on PATH for the later steps. It runs from a `run:`
// step after sudo and docker are dropped: an install needs neither, and a package's code gets
// no privilege the agent would not have.
//
// The folder: where the sandbox setup step said ($BATON_CLI_DIR, through GITHUB_ENV) — the
// runner's, mode 0755, outside RUNNER_TEMP, which the setup closes to the agent's user: the
// fenced agent can run its CLI but not change it. Without the fence (a self-hosted runner),
// $RUNNER_TEMP/baton-clis.
import * as core from '@actions/core';
import { accessSync, constants, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BACKEND_IMPLS } from '../../agents/backends/index.ts';
import type { AgentBackend } from '../../agents/backends/types.ts';
import { installNpmCli, installPipxCli, type InstallLog } from '../../agents/install/install-cli.ts';
import { npmCliLock } from '../../agents/install/lockfiles.ts';
import type { Backend } from '../../manifest/types.ts';
import { InputError, type Inputs } from '../inputs.ts';
import { CLI_DIR_VARIABLE } from './sandbox-setup.ts';

/**
 * The runner already has the CLI at the pinned version (a self-hosted runner's own
 * install): its path, else null. What the runner's owner put there is theirs to vouch for.
 */
function pinnedOnPath(b: AgentBackend, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const exe = join(dir, b.binary!);
    try {
      accessSync(exe, constants.X_OK);
    } catch {
      continue;
    }
    const r = spawnSync(exe, ['--version'], { encoding: 'utf8', timeout: 60_000 });
    const words = `${r.stdout ?? ''} ${r.stderr ?? ''}`.split(/[^\w.-]+/);
    return r.status === 0 && words.includes(b.version!) ? exe : null;
  }
  return null;
}

export function backendsToInstall(text: string): AgentBackend[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  const out: AgentBackend[] = [];
  for (const name of names) {
    const b = BACKEND_IMPLS[name as Backend];
    if (!b) throw new InputError(`INPUT_CLIS: unknown backend ${JSON.stringify(name)}; known: ${Object.keys(BACKEND_IMPLS).join(', ')}`);
    if (b.install && b.binary && b.version && !out.includes(b)) out.push(b);
  }
  return out;
}

/** Where the CLIs go: the fence's folder for them when the setup step made one, else the job's temp folder. */
export function cliDir(env: NodeJS.ProcessEnv): string {
  const fenced = env[CLI_DIR_VARIABLE];
  if (fenced) {
    if (!isAbsolute(fenced)) throw new InputError(`${CLI_DIR_VARIABLE} must be an absolute path, not ${JSON.stringify(fenced)}`);
    return fenced;
  }
  if (!env.RUNNER_TEMP) throw new InputError('mode install-clis needs RUNNER_TEMP (the job\'s temp folder) to install into');
  return join(env.RUNNER_TEMP, 'baton-clis');
}

export async function installClisMode(_inputs: Inputs): Promise<void> {
  const backends = backendsToInstall(core.getInput('clis'));
  const root = cliDir(process.env);
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const log: InstallLog = { info: (l) => core.info(l), warning: (l) => core.warning(l) };
  const path = process.env.PATH ?? '';
  for (const b of backends) {
    const have = pinnedOnPath(b, path);
    if (have) {
      core.info(`${b.name}: ${b.binary} ${b.version} is already on this runner (${have}); not installed`);
      continue;
    }
    core.info(
      'npm' in b.install!
        ? `${b.name}: installing ${b.install.npm}@${b.version} from baton's lockfile (agent-clis/${b.name}/package-lock.json), package scripts off`
        : `${b.name}: installing ${b.install!.pipx}==${b.version} with pipx`,
    );
    const prefix = join(root, b.name);
    const installed = 'npm' in b.install! ? await installNpmCli(npmCliLock(b.name), prefix, log) : await installPipxCli(b, prefix, log);
    // Only the CLI's own executable goes on PATH, not every dependency's (node_modules/.bin).
    rmSync(join(bin, b.binary!), { force: true });
    symlinkSync(installed.bin, join(bin, b.binary!));
    core.info(`${b.name}: ${b.binary} ${b.version} installed in ${prefix}`);
  }
  // Readable and runnable by every user (the fenced agent's too), whatever this step's umask;
  // writable by the worker's user alone, as the files were made.
  const chmod = spawnSync('chmod', ['-R', 'a+rX', '--', root], { encoding: 'utf8' });
  if (chmod.status !== 0) core.warning(`chmod -R a+rX ${root} failed: ${(chmod.stderr || chmod.error?.message || '').trim()}`);
  core.addPath(bin);
}
