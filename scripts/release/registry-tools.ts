// The tools of the registry check (verdaccio and its 326 dependencies), installed the one way the
// release job may install anything: exactly what a committed lockfile names, at the bytes its
// integrity hashes name, with no install scripts (a dependency's postinstall would otherwise run
// in the release job). Shared by scripts/release/registry-check.ts and its test.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** scripts/release/registry-check/: the package.json and package-lock.json of the tools. */
export const REGISTRY_TOOLS = fileURLToPath(new URL('registry-check', import.meta.url));

/**
 * Copies the tools' package.json and lockfile from `from` into the empty folder `into` and runs
 * `npm ci --ignore-scripts` there (a temporary folder: no node_modules in the repository).
 * npm ci fails when the lockfile is missing or does not match the package.json.
 */
export function installRegistryTools(into: string, from = REGISTRY_TOOLS): void {
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(from, file), join(into, file));
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: into, stdio: 'inherit' });
}
