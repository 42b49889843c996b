// Writes the lockfile of each npm agent CLI (agent-clis/<backend>/) at the version its backend
// pins: a package.json depending on exactly that version, and npm's lockfile of the whole
// tree with integrity hashes (`npm install --package-lock-only --ignore-scripts`: nothing
// is installed, no script runs). Run it after changing a `version` in
// src/agents/backends/, review the lockfile's diff, and commit both files; the worker
// workflow and the contract tests install from them (src/agents/install/).
//
//   npx tsx scripts/agent-clis/lock.ts [backend…]
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { checkLockfile, npmCliLocks, REGISTRY } from '../../src/agents/install/lockfiles.ts';

const run = promisify(execFile);

export async function lockAgentClis(names: string[] = []): Promise<void> {
  const all = npmCliLocks();
  const chosen = names.length ? all.filter((l) => names.includes(l.backend.name)) : all;
  if (chosen.length !== (names.length || all.length)) throw new Error(`not an npm-installed backend among ${names.join(', ')}; known: ${all.map((l) => l.backend.name).join(', ')}`);
  for (const lock of chosen) {
    mkdirSync(lock.dir, { recursive: true });
    rmSync(join(lock.dir, 'package-lock.json'), { force: true });
    const manifest = {
      name: `baton-agent-cli-${lock.backend.name}`,
      private: true,
      description: `${lock.pkg} at the version baton pins, locked (scripts/agent-clis/lock.ts writes this)`,
      dependencies: { [lock.pkg]: lock.version },
    };
    writeFileSync(join(lock.dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', `--registry=${REGISTRY}`, '--omit-lockfile-registry-resolved=false', '--loglevel=error'], { cwd: lock.dir });
    for (const missing of fillUnhashedPlatformPackages(join(lock.dir, 'package-lock.json'))) {
      console.warn(`${lock.pkg}: the registry has no ${missing}; locked without a hash (an install on its platform is refused until this is written again against a registry that has it)`);
    }
    checkLockfile(lock);
    console.log(`${lock.pkg}@${lock.version}: agent-clis/${lock.backend.name}/package-lock.json written`);
  }
}

/** os, cpu and libc of a platform package, from its name (`<cli>-linux-x64-baseline-musl`, `<cli>-windows-arm64`…). */
export function platformOfName(name: string): { os: string; cpu: string; libc?: string } | null {
  const m = /-(darwin|linux|windows|win32|freebsd)-(x64|arm64|ia32|arm)(?:-baseline)?(-musl)?$/.exec(name);
  if (!m) return null;
  const os = m[1] === 'windows' ? 'win32' : m[1]!;
  return { os, cpu: m[2]!, ...(m[3] ? { libc: 'musl' } : os === 'linux' ? { libc: 'glibc' } : {}) };
}

/**
 * npm leaves out an optional platform package its registry does not have (a mirror that holds
 * only this machine's), and `npm ci` then refuses the lockfile ("Missing: … from lock file").
 * Each such package is written as an optional entry for its platform with no address and no
 * hash: npm never fetches it elsewhere, and baton refuses to install on its platform
 * (lockfiles.ts, isUnhashedPlatformEntry). Returns the packages written so.
 */
export function fillUnhashedPlatformPackages(lockPath: string): string[] {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, { version?: string; optionalDependencies?: Record<string, string> }> };
  const filled: string[] = [];
  for (const entry of Object.values(lock.packages)) {
    for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const key = `node_modules/${dep}`;
      const platform = platformOfName(dep);
      if (lock.packages[key] || !platform) continue;
      lock.packages[key] = { version, optional: true, os: [platform.os], cpu: [platform.cpu], ...(platform.libc ? { libc: [platform.libc] } : {}) } as never;
      filled.push(`${dep}@${version}`);
    }
  }
  if (filled.length) writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
  return filled;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  lockAgentClis(process.argv.slice(2)).catch((err) => {
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  });
}
