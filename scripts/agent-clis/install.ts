// Installs every npm agent CLI at the version its backend pins into .cache/agent-clis/
// (see cache.ts), for the contract tests in tests/agents/contract/ (`npm run test:contract`
// runs this first, from tests/setup/agent-clis.ts) — with the worker's own installer
// (src/agents/install/): from baton's lockfile, package scripts off, the reviewed
// postinstall, registry signatures checked; a registry hiccup is retried. Already installed
// versions (from the same lockfile) are skipped. Prints the time and size of each install.
//
//   npx tsx scripts/agent-clis/install.ts [backend…]
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installNpmCli } from '../../src/agents/install/install-cli.ts';
import { DONE_MARKER, installed, lockHash, npmClis, type NpmCli } from './cache.ts';

/**
 * Bytes on disk under a folder, each file once: postinstall steps hard-link the platform
 * binary (400 MB for claude) into the main package, and symlinks are not followed.
 */
function sizeOf(path: string, seen = new Set<string>()): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) {
    const inode = `${st.dev}:${st.ino}`;
    if (!st.isFile() || seen.has(inode)) return 0;
    seen.add(inode);
    return st.size;
  }
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    total += sizeOf(join(path, entry.name), seen);
  }
  return total;
}

export interface InstallReport {
  name: string;
  spec: string;
  skipped: boolean;
  seconds: number;
  megabytes: number;
}

/** Installs one CLI into a scratch folder, then moves it into place: a crash leaves no half install. */
async function installOne(cli: NpmCli): Promise<InstallReport> {
  const spec = `${cli.pkg}@${cli.version}`;
  if (installed(cli)) return { name: cli.backend.name, spec, skipped: true, seconds: 0, megabytes: Math.round(sizeOf(cli.dir) / 1e6) };
  const started = Date.now();
  const scratch = `${cli.dir}.partial`;
  await installNpmCli(cli.lock, scratch, { info: (l) => console.log(l), warning: (l) => console.error(l) });
  rmSync(cli.dir, { recursive: true, force: true });
  mkdirSync(join(cli.dir, '..'), { recursive: true });
  renameSync(scratch, cli.dir);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  writeFileSync(join(cli.dir, DONE_MARKER), JSON.stringify({ spec, lock: lockHash(cli), seconds, installedAt: new Date().toISOString() }) + '\n');
  if (!installed(cli)) throw new Error(`${spec} installed, but its executable ${cli.bin} is missing`);
  return { name: cli.backend.name, spec, skipped: false, seconds, megabytes: Math.round(sizeOf(cli.dir) / 1e6) };
}

/** Installs the named backends' CLIs (all npm ones when none is named), side by side. */
export async function installAgentClis(names: string[] = []): Promise<InstallReport[]> {
  const all = npmClis();
  const unknown = names.filter((n) => !all.some((c) => c.backend.name === n));
  if (unknown.length) throw new Error(`not an npm-installed backend: ${unknown.join(', ')}; known: ${all.map((c) => c.backend.name).join(', ')}`);
  const chosen = names.length ? all.filter((c) => names.includes(c.backend.name)) : all;
  return Promise.all(chosen.map(installOne));
}

/** Installs (see installAgentClis) and prints one line per CLI and the total: what it cost, or that it was there. */
export async function installAgentClisReporting(names: string[] = []): Promise<void> {
  const started = Date.now();
  const reports = await installAgentClis(names);
  for (const r of reports) console.log(`${r.spec.padEnd(36)} ${r.skipped ? 'already installed' : `installed in ${r.seconds}s`}, ${r.megabytes} MB`);
  const mb = reports.reduce((s, r) => s + r.megabytes, 0);
  console.log(`agent CLIs ready in ${Math.round((Date.now() - started) / 1000)}s, ${mb} MB in total`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  installAgentClisReporting(process.argv.slice(2)).catch((err) => {
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  });
}
