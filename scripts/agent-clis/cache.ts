// Where the real agent CLIs live for the contract tests: one folder per package at the
// version its backend pins (`version` in src/agents/backends/<name>.ts, the one place it
// lives), inside the repository's gitignored `.cache/agent-clis/`, installed from the same
// lockfile the worker workflow installs from (agent-clis/<backend>/).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentBackend } from '../../src/agents/backends/types.ts';
import { npmCliLocks, type NpmCliLock } from '../../src/agents/install/lockfiles.ts';

export const CACHE_ROOT = fileURLToPath(new URL('../../.cache/agent-clis/', import.meta.url));

/** Written last by the installer: a folder without it is a half-finished install. */
export const DONE_MARKER = '.installed.json';

export interface NpmCli {
  backend: AgentBackend;
  lock: NpmCliLock;
  pkg: string;
  version: string;
  /** The folder the package is installed into (`npm install --prefix`). */
  dir: string;
  /** The CLI's executable inside it. */
  bin: string;
}

/** Every backend whose CLI is an npm package, at its pinned version (aider is pipx: not here). */
export function npmClis(): NpmCli[] {
  return npmCliLocks().map((lock) => {
    const dir = join(CACHE_ROOT, `${lock.pkg}@${lock.version}`);
    return { backend: lock.backend, lock, pkg: lock.pkg, version: lock.version, dir, bin: join(dir, 'node_modules', '.bin', lock.binary) };
  });
}

export function npmCli(name: AgentBackend['name']): NpmCli {
  const cli = npmClis().find((c) => c.backend.name === name);
  if (!cli) throw new Error(`backend ${name} is not installed from npm`);
  return cli;
}

/** The lockfile's hash: an install from an older lockfile is installed again. */
export function lockHash(cli: NpmCli): string {
  return createHash('sha256').update(readFileSync(join(cli.lock.dir, 'package-lock.json'))).digest('hex');
}

export function installed(cli: NpmCli): boolean {
  if (!existsSync(cli.bin)) return false;
  try {
    return (JSON.parse(readFileSync(join(cli.dir, DONE_MARKER), 'utf8')) as { lock?: string }).lock === lockHash(cli);
  } catch {
    return false;
  }
}
