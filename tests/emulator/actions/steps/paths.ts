// Paths a workflow names are relative to the workspace (or absolute, like on a runner).
// A small glob for upload-artifact's `path:` lives here too: `*`, `**` and `?`.
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';

export function resolveInWorkspace(workspace: string, p: string): string {
  const expanded = p.startsWith('~/') ? join(process.env.HOME ?? '/', p.slice(2)) : p;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(workspace, expanded);
}

export function hasGlob(p: string): boolean {
  return /[*?[]/.test(p);
}

export interface GlobOptions {
  /**
   * Leave out every file or directory whose name starts with `.`, the search root itself
   * included — @actions/glob's `excludeHiddenFiles`, which upload-artifact v4.4+ sets unless
   * `include-hidden-files: true`.
   */
  excludeHidden?: boolean;
}

const isHidden = (p: string): boolean => basename(p).startsWith('.');

/** Every file under `dir`, as absolute paths. */
export async function walkFiles(dir: string, options: GlobOptions = {}): Promise<string[]> {
  const out: string[] = [];
  const visit = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      if (options.excludeHidden && entry.name.startsWith('.')) continue;
      const full = join(d, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  await visit(dir);
  return out;
}

function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches any number of directories, `**` at the end anything
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The directory part of a pattern before its first wildcard segment. */
export function searchRoot(absPattern: string): string {
  const parts = absPattern.split('/');
  const i = parts.findIndex(hasGlob);
  return i === -1 ? absPattern : parts.slice(0, i).join('/') || '/';
}

/** Files matching an absolute glob pattern; a directory match contributes its files. */
export async function globFiles(absPattern: string, options: GlobOptions = {}): Promise<string[]> {
  const root = searchRoot(absPattern);
  if (options.excludeHidden && isHidden(root)) return [];
  let info;
  try {
    info = await stat(root);
  } catch {
    return [];
  }
  if (!hasGlob(absPattern)) return info.isDirectory() ? walkFiles(root, options) : [root];
  if (!info.isDirectory()) return [];
  const re = globRegex(absPattern);
  const files = await walkFiles(root, options);
  return files.filter((f) => {
    if (re.test(f)) return true;
    // a matched directory contributes everything below it
    let d = f;
    while (d.length > root.length) {
      d = d.slice(0, d.lastIndexOf('/'));
      if (re.test(d)) return true;
    }
    return false;
  });
}

/** Longest common directory of absolute paths. */
export function commonDir(paths: string[]): string {
  if (paths.length === 0) return '/';
  let parts = paths[0]!.split(sep);
  for (const p of paths.slice(1)) {
    const other = p.split(sep);
    let i = 0;
    while (i < parts.length && i < other.length && parts[i] === other[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
