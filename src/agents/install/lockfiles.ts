// The lockfile baton ships for each npm-installed agent CLI (`agent-clis/<backend>/` in the
// package: a package.json depending on exactly the pinned version, and npm's lockfile with
// an integrity hash for every package of the tree). The worker workflow and the contract
// tests install from these and nothing else, so what is tested is what runs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BACKEND_IMPLS } from '../backends/index.ts';
import type { AgentBackend } from '../backends/types.ts';
import type { Backend } from '../../manifest/types.ts';

/**
 * The package's `agent-clis/` folder: three levels up from this source file, one up from a
 * bundle in dist/ (the Action's dist/action.js).
 */
export function lockRoot(): string {
  const candidates = ['../../../agent-clis/', '../agent-clis/'].map((u) => fileURLToPath(new URL(u, import.meta.url)));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** The only registry a lockfile may resolve to (npm swaps in a configured mirror: `replace-registry-host`). */
export const REGISTRY = 'https://registry.npmjs.org/';

export interface NpmCliLock {
  backend: AgentBackend;
  pkg: string;
  version: string;
  binary: string;
  /** The folder holding package.json and package-lock.json. */
  dir: string;
}

/** Every backend whose CLI is an npm package, with where its lockfile lives. */
export function npmCliLocks(root = lockRoot()): NpmCliLock[] {
  const out: NpmCliLock[] = [];
  for (const backend of Object.values(BACKEND_IMPLS)) {
    if (!backend.install || !('npm' in backend.install) || !backend.version || !backend.binary) continue;
    out.push({ backend, pkg: backend.install.npm, version: backend.version, binary: backend.binary, dir: join(root, backend.name) });
  }
  return out;
}

export function npmCliLock(name: Backend, root = lockRoot()): NpmCliLock {
  const lock = npmCliLocks(root).find((l) => l.backend.name === name);
  if (!lock) throw new Error(`${name}'s CLI is not installed from npm`);
  return lock;
}

export class LockfileError extends Error {}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  optional?: boolean;
  os?: string[] | string;
  cpu?: string[] | string;
  libc?: string[] | string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Where node would find `dep` from the package at `key` (its own node_modules, then its parents'). */
function resolves(packages: Record<string, LockEntry>, key: string, dep: string): boolean {
  for (let at = key; ; ) {
    if (packages[`${at ? `${at}/` : ''}node_modules/${dep}`]) return true;
    if (!at) return false;
    const i = at.lastIndexOf('/node_modules/');
    at = i < 0 ? '' : at.slice(0, i);
  }
}

/**
 * Refuses a lockfile npm would install something unchecked from: every package must come
 * from the registry with a sha512 integrity hash (npm verifies a tarball only against a hash
 * it has; a `file:`, git or link entry has none), and the CLI must be the pinned version.
 * Returns the lockfile's text.
 */
export function checkLockfile(lock: NpmCliLock): string {
  const where = `baton's lockfile for ${lock.backend.name} (agent-clis/${lock.backend.name}/package-lock.json)`;
  const path = join(lock.dir, 'package-lock.json');
  let text: string;
  let parsed: { lockfileVersion?: number; packages?: Record<string, LockEntry> };
  try {
    text = readFileSync(path, 'utf8');
    parsed = JSON.parse(text);
  } catch (err) {
    throw new LockfileError(`${where} cannot be read: ${(err as Error).message}`);
  }
  const manifest = JSON.parse(readFileSync(join(lock.dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  if (manifest.dependencies?.[lock.pkg] !== lock.version || Object.keys(manifest.dependencies).length !== 1) {
    throw new LockfileError(`agent-clis/${lock.backend.name}/package.json must depend on exactly ${lock.pkg}@${lock.version} (the version baton pins)`);
  }
  const packages = parsed.packages;
  if (parsed.lockfileVersion !== 3 || !packages) throw new LockfileError(`${where} is not an npm lockfile of version 3`);
  const top = packages[`node_modules/${lock.pkg}`];
  if (top?.version !== lock.version) throw new LockfileError(`${where} has ${lock.pkg}@${top?.version ?? '(none)'}, but baton pins ${lock.version}`);
  for (const [key, entry] of Object.entries(packages)) {
    if (key === '') continue;
    const name = `${key.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'}`;
    // A platform package the registry the lockfile was written against did not have: npm ci
    // never fetches it on another platform, and installNpmCli refuses the platform it is for.
    if (isUnhashedPlatformEntry(entry)) continue;
    if (entry.link || !entry.resolved?.startsWith(REGISTRY)) throw new LockfileError(`${where}: ${name} does not come from ${REGISTRY} (resolved: ${JSON.stringify(entry.resolved ?? null)})`);
    if (!/^sha512-[A-Za-z0-9+/]+=*$/.test(entry.integrity ?? '')) throw new LockfileError(`${where}: ${name} has no sha512 integrity hash`);
  }
  // npm ci refuses a lockfile that lacks a dependency (EUSAGE, "Missing: … from lock file"), an
  // optional one too: a lockfile written against a registry that lacked some platform package.
  for (const [key, entry] of Object.entries(packages)) {
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      if (!resolves(packages, key, dep)) {
        throw new LockfileError(`${where}: ${key.replace(/^.*node_modules\//, '') || 'the root'} depends on ${dep}, which the lockfile lacks; write it again with \`npx tsx scripts/agent-clis/lock.ts ${lock.backend.name}\` against a registry that has every package`);
      }
    }
  }
  return text;
}

/**
 * An optional package for some os/cpu, with no tarball address and no hash (lock.ts writes
 * these for platform packages its registry lacked). npm skips it on any other platform without
 * fetching it; on its own platform npm would fetch it unchecked, so the install is refused there.
 */
export function isUnhashedPlatformEntry(entry: LockEntry): boolean {
  return entry.optional === true && (entry.os !== undefined || entry.cpu !== undefined) && entry.resolved === undefined && entry.integrity === undefined && !entry.link;
}

/** The unhashed platform entries of a lockfile (name@version with the entry). */
export function unhashedPlatformEntries(lockText: string): { name: string; entry: LockEntry }[] {
  const packages = (JSON.parse(lockText) as { packages?: Record<string, LockEntry> }).packages ?? {};
  return Object.entries(packages)
    .filter(([key, entry]) => key !== '' && isUnhashedPlatformEntry(entry))
    .map(([key, entry]) => ({ name: `${key.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'}`, entry }));
}

/** The lockfile entry (package@version) that has this integrity hash, to name it in a mismatch. */
export function entryWithIntegrity(lockText: string, integrity: string): string | null {
  const packages = (JSON.parse(lockText) as { packages?: Record<string, LockEntry> }).packages ?? {};
  for (const [key, entry] of Object.entries(packages)) {
    if (entry.integrity === integrity) return `${key.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'}`;
  }
  return null;
}
