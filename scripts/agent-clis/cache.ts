// Where the real agent CLIs live for the contract tests: one folder per package at the
// version its backend pins (`version` in src/agents/backends/<name>.ts, the one place it
// lives), inside the repository's gitignored `.cache/agent-clis/`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BACKEND_IMPLS } from '../../src/agents/backends/index.ts';
import type { AgentBackend } from '../../src/agents/backends/types.ts';

export const CACHE_ROOT = fileURLToPath(new URL('../../.cache/agent-clis/', import.meta.url));

/** Written last by the installer: a folder without it is a half-finished install. */
export const DONE_MARKER = '.installed.json';

export interface NpmCli {
  backend: AgentBackend;
  pkg: string;
  version: string;
  /** The folder the package is installed into (`npm install --prefix`). */
  dir: string;
  /** The CLI's executable inside it. */
  bin: string;
}

/** Every backend whose CLI is an npm package, at its pinned version (aider is pipx: not here). */
export function npmClis(): NpmCli[] {
  const out: NpmCli[] = [];
  for (const backend of Object.values(BACKEND_IMPLS)) {
    if (!backend.install || !('npm' in backend.install) || !backend.version || !backend.binary) continue;
    const pkg = backend.install.npm;
    const dir = join(CACHE_ROOT, `${pkg}@${backend.version}`);
    out.push({ backend, pkg, version: backend.version, dir, bin: join(dir, 'node_modules', '.bin', backend.binary) });
  }
  return out;
}

export function npmCli(name: AgentBackend['name']): NpmCli {
  const cli = npmClis().find((c) => c.backend.name === name);
  if (!cli) throw new Error(`backend ${name} is not installed from npm`);
  return cli;
}

export function installed(cli: NpmCli): boolean {
  return existsSync(join(cli.dir, DONE_MARKER)) && existsSync(cli.bin);
}
