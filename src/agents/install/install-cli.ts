// Installs one agent CLI the way the worker workflow and the contract tests both do: an
// npm CLI from baton's lockfile (`npm ci --ignore-scripts`: every tarball checked against
// the lockfile's integrity hash, no package script run), then the postinstall baton has
// reviewed where the CLI needs one (native-binary.ts), then `npm audit signatures`; aider
// with pipx. Into a folder of its own (a job-local prefix, or the contract tests' cache),
// never globally: it needs no privilege.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentBackend } from '../backends/types.ts';
import { checkLockfile, entryWithIntegrity, LockfileError, unhashedPlatformEntries, type NpmCliLock } from './lockfiles.ts';
import { meantFor, missingFromTree } from './installed-tree.ts';
import { currentPlatform, placeNativeBinary, REVIEWED_POSTINSTALLS } from './native-binary.ts';
import { auditSignatures, type SignatureVerdict } from './signatures.ts';

export interface InstallLog {
  info(line: string): void;
  warning(line: string): void;
}

export interface Retry {
  tries: number;
  pauseMs: number;
}

/** A registry hiccup must not fail the job: three tries, 15 s apart (a mismatch is never retried). */
export const RETRY: Retry = { tries: 3, pauseMs: 15_000 };

/** Not worth a retry: the lockfile or the bytes served are wrong, and will be next time too. */
export class InstallRefused extends Error {}

export interface InstalledCli {
  /** The CLI's executable. */
  bin: string;
  /** The native binary the reviewed postinstall put in place, if the CLI has one. */
  nativeBinary: string | null;
  signatures: SignatureVerdict | null;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = !err ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (code === -1 ? String((err as Error).message) : '') });
    });
  });
}

/**
 * What went wrong, from npm's stderr, in one line: its error lines without the stack, the
 * blank ones and the advice it prints after every failure (where its log is, proxies).
 */
export function npmFailure(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((l) => l && !/^at |^\{|^\}|^\w+: ['\d]|A complete log of this run|If you are behind a proxy/.test(l));
  // The line that names the cause (FetchError: request to … failed, reason: …; 404 Not Found …), when there is one.
  const cause = lines.filter((l) => /^\w*Error: |\b404\b|No matching version|Integrity checksum/.test(l));
  return (cause.length ? cause : lines.length ? lines : [stderr.trim()]).slice(0, 3).join(' / ');
}

async function withRetries<T>(what: string, log: InstallLog, retry: Retry, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof InstallRefused || err instanceof LockfileError || n >= retry.tries) throw err;
      log.warning(`${what} failed (try ${n} of ${retry.tries}), retrying in ${retry.pauseMs / 1000}s: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, retry.pauseMs));
    }
  }
}

/** An npm CLI from its lockfile into `prefix` (emptied first). */
export async function installNpmCli(lock: NpmCliLock, prefix: string, log: InstallLog, retry: Retry = RETRY): Promise<InstalledCli> {
  const name = lock.backend.name;
  const lockText = checkLockfile(lock);
  const platform = currentPlatform();
  const unhashed = unhashedPlatformEntries(lockText).filter((u) => meantFor(u.entry, platform));
  if (unhashed.length) {
    throw new InstallRefused(
      `${name}: baton's lockfile (agent-clis/${name}/package-lock.json) has no integrity hash for ${unhashed.map((u) => u.name).join(', ')}, the package${unhashed.length > 1 ? 's' : ''} for this platform ` +
        `(${platform.os} ${platform.arch}${platform.musl ? ' musl' : ''}): npm would install ${unhashed.length > 1 ? 'them' : 'it'} unchecked, so nothing is installed; ` +
        `write the lockfile again with \`npx tsx scripts/agent-clis/lock.ts ${name}\` against a registry that has ${unhashed.length > 1 ? 'them' : 'it'}`,
    );
  }
  await withRetries(`npm ci of ${lock.pkg}@${lock.version}`, log, retry, async () => {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(lock.dir, f), join(prefix, f));
    // --ignore-scripts: no package's preinstall/install/postinstall (nor node-gyp's implicit build) runs.
    const ci = await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'], prefix);
    if (ci.code === 0) return;
    const mismatch = /integrity checksum failed when using (\w+): wanted (\S+) but got (\S+?)\.?(\s|$)/i.exec(ci.stderr);
    if (/EINTEGRITY/.test(ci.stderr) || mismatch) {
      const entry = mismatch ? entryWithIntegrity(lockText, mismatch[2]!) : null;
      throw new InstallRefused(
        `${name}: integrity mismatch — the registry served ${entry ?? 'a package'} with a different hash than baton's lockfile (agent-clis/${name}/package-lock.json) holds` +
          (mismatch ? ` (wanted ${mismatch[2]}, got ${mismatch[3]})` : '') +
          '; nothing was installed and the agent does not run',
      );
    }
    // EUSAGE: the lockfile does not match its package.json (npm ci refuses to resolve anew); a retry changes nothing.
    if (/code EUSAGE/.test(ci.stderr)) throw new InstallRefused(`${name}: baton's lockfile (agent-clis/${name}/) cannot be installed: ${npmFailure(ci.stderr)}`);
    throw new Error(`npm ci: ${npmFailure(ci.stderr) || `exited ${ci.code}`}`);
  });
  const missing = missingFromTree(lockText, prefix, platform);
  if (missing.length) {
    throw new InstallRefused(
      `${name}: ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} in baton's lockfile (agent-clis/${name}/package-lock.json) for this platform, but npm did not install ${missing.length > 1 ? 'them' : 'it'}: ` +
        'npm skips an optional package whose tarball does not match the integrity hash of the lockfile (or cannot be downloaded); the install is refused and the agent does not run',
    );
  }
  const nodeModules = join(prefix, 'node_modules');
  const nativeBinary = placeNativeBinary(name, nodeModules, platform);
  if (nativeBinary) log.info(`${name}: put ${nativeBinary} in place of its stub (baton's own step for ${REVIEWED_POSTINSTALLS[name]!.replaces}, which did not run)`);
  const bin = join(nodeModules, '.bin', lock.binary);
  if (!existsSync(bin)) throw new InstallRefused(`${name}: installed from the lockfile, but its executable ${lock.binary} is missing`);
  const signatures = await auditSignatures(prefix);
  if (signatures.kind === 'refused') throw new InstallRefused(`${name}: registry signatures do not match: ${signatures.reason}`);
  if (signatures.kind === 'verified') log.info(`${name}: registry signatures verified (npm audit signatures): ${signatures.summary}`);
  else log.warning(`${name}: registry signatures not verified (npm audit signatures: ${signatures.reason}); the lockfile's integrity hashes were checked`);
  return { bin, nativeBinary, signatures };
}

/**
 * aider is a Python program: pipx puts it in a virtualenv of its own under `prefix`. Its
 * version is pinned, its dependencies are not hashed (no hashed requirements file yet:
 * docs/agents.md).
 */
export async function installPipxCli(backend: AgentBackend, prefix: string, log: InstallLog, retry: Retry = RETRY): Promise<InstalledCli> {
  if (!backend.install || !('pipx' in backend.install) || !backend.binary) throw new Error(`${backend.name} is not installed with pipx`);
  const spec = `${backend.install.pipx}==${backend.version}`;
  const env = { ...process.env, PIPX_HOME: join(prefix, 'pipx'), PIPX_BIN_DIR: join(prefix, 'bin'), PIPX_MAN_DIR: join(prefix, 'man') };
  await withRetries(`pipx install ${spec}`, log, retry, async () => {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    const r = await run('pipx', ['install', spec], prefix, env);
    if (r.code !== 0) throw new Error(`pipx install ${spec}: ${r.stderr.trim().split('\n').slice(-3).join(' / ') || `exited ${r.code}`}`);
  });
  log.warning(`${backend.name}: installed with pipx; its dependencies are not pinned by hash`);
  return { bin: join(prefix, 'bin', backend.binary), nativeBinary: null, signatures: null };
}
