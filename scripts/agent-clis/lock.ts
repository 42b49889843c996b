// Writes the lockfile of each npm agent CLI (agent-clis/<backend>/) at the version its backend
// pins: a package.json depending on exactly that version, and npm's lockfile of the whole
// tree with integrity hashes (`npm install --package-lock-only --ignore-scripts`: nothing
// is installed, no script runs). Run it after changing a `version` in
// src/agents/backends/, review the lockfile's diff, and commit both files; the worker
// workflow and the contract tests install from them (src/agents/install/).
//
//   npx tsx scripts/agent-clis/lock.ts [backend…]
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
    checkLockfile(lock);
    console.log(`${lock.pkg}@${lock.version}: agent-clis/${lock.backend.name}/package-lock.json written`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  lockAgentClis(process.argv.slice(2)).catch((err) => {
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  });
}
