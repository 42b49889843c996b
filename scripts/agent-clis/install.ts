// Installs every npm agent CLI at the version its backend pins into .cache/agent-clis/
// (see cache.ts), for the contract tests in tests/agents/contract/ (`npm run test:contract`
// runs this first, from tests/setup/agent-clis.ts). Already installed
// versions are skipped; a failed install is retried (three tries, 15 s apart, as the worker
// workflow `baton init` writes does). Prints the time and size of each install.
//
//   npx tsx scripts/agent-clis/install.ts [backend…]
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DONE_MARKER, installed, npmClis, type NpmCli } from './cache.ts';

const run = promisify(execFile);
const TRIES = 3;
const PAUSE_MS = 15_000;

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

/**
 * What went wrong, from npm's stderr, in one line: its error lines without the stack, the
 * blank ones and the advice it prints after every failure (where its log is, proxies).
 */
function npmFailure(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((l) => l && !/^at |^\{|^\}|^\w+: ['\d]|A complete log of this run|If you are behind a proxy/.test(l));
  // The line that names the cause (FetchError: request to … failed, reason: …; 404 Not Found …), when there is one.
  const cause = lines.filter((l) => /^\w*Error: |\b404\b|No matching version/.test(l));
  return (cause.length ? cause : lines.length ? lines : [stderr.trim()]).slice(0, 3).join(' / ');
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
  for (let attempt = 1; ; attempt++) {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    // Its own package.json, so npm installs here and never into the repository's node_modules.
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'agent-cli-cache', private: true }));
    try {
      await run('npm', ['install', '--prefix', scratch, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], { maxBuffer: 64 * 1024 * 1024 });
      break;
    } catch (err) {
      const why = npmFailure(String((err as { stderr?: string }).stderr || (err as Error).message));
      if (attempt >= TRIES) throw new Error(`npm install ${spec} failed ${TRIES} times; last: ${why}`, { cause: err });
      console.error(`${spec}: install failed (try ${attempt} of ${TRIES}), retrying in ${PAUSE_MS / 1000}s: ${why}`);
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
  }
  rmSync(cli.dir, { recursive: true, force: true });
  mkdirSync(join(cli.dir, '..'), { recursive: true });
  renameSync(scratch, cli.dir);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  writeFileSync(join(cli.dir, DONE_MARKER), JSON.stringify({ spec, seconds, installedAt: new Date().toISOString() }) + '\n');
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
