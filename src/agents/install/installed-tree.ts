// npm ci skips an optional package it cannot install — its tarball failing the lockfile's
// integrity hash included — and still exits 0. A CLI's native binary is such a package, so
// after the install every lockfile entry meant for this platform must be on disk.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from './native-binary.ts';

interface Entry {
  version?: string;
  os?: string[] | string;
  cpu?: string[] | string;
  libc?: string[] | string;
}

/** npm's rule (npm-install-checks checkList): none of the `!` values, and one of the others if any. */
function listAllows(value: string | undefined, list: string[] | string | undefined): boolean {
  if (list === undefined) return true;
  const items = typeof list === 'string' ? [list] : list;
  if (value === undefined) return false;
  if (items.length === 1 && items[0] === 'any') return true;
  const negated = items.filter((i) => i.startsWith('!'));
  if (negated.some((i) => i.slice(1) === value)) return false;
  return items.some((i) => i === value) || negated.length === items.length;
}

/** Whether npm installs this entry on `p` (its os, cpu and libc fields). */
export function meantFor(entry: Entry, p: Platform): boolean {
  const libc = p.os === 'linux' ? (p.musl ? 'musl' : 'glibc') : undefined;
  return listAllows(p.os, entry.os) && listAllows(p.arch, entry.cpu) && listAllows(libc, entry.libc);
}

/** Lockfile entries (name@version) meant for this platform that are not installed under `prefix`. */
export function missingFromTree(lockText: string, prefix: string, p: Platform): string[] {
  const packages = (JSON.parse(lockText) as { packages?: Record<string, Entry> }).packages ?? {};
  const missing: string[] = [];
  for (const [key, entry] of Object.entries(packages)) {
    // An entry with neither address nor hash is one the install refuses on its platform (install-cli.ts) and never fetches elsewhere.
    if (key === '' || !meantFor(entry, p) || (entry as { integrity?: string }).integrity === undefined) continue;
    const manifest = join(prefix, key, 'package.json');
    const version = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
    if (version !== entry.version) missing.push(`${key.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'}`);
  }
  return missing;
}
