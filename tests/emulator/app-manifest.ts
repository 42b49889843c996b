/**
 * The app the emulator serves is baton's own: its permissions and events come from the
 * repository's `app.yml` (the manifest a user registers the App with), never from a list
 * kept here. An emulator that granted more than the manifest asks for would let baton
 * depend on a permission no real installation has (it once granted `workflows` and
 * `statuses: write`, which app.yml does not ask for).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Level, Permissions } from './auth.ts';

const LEVELS: ReadonlySet<string> = new Set(['read', 'write', 'admin']);

export interface AppManifest {
  permissions: Permissions;
  events: string[];
}

/** `default_permissions` and `default_events` of a GitHub App manifest (YAML or JSON text). */
export function parseAppManifest(text: string, where: string): AppManifest {
  const doc = parse(text) as { default_permissions?: Record<string, unknown>; default_events?: unknown } | null;
  const raw = doc?.default_permissions;
  if (raw === undefined || raw === null || typeof raw !== 'object') throw new Error(`${where}: no default_permissions`);
  const permissions: Permissions = {};
  for (const [scope, level] of Object.entries(raw)) {
    if (typeof level !== 'string' || !LEVELS.has(level)) throw new Error(`${where}: default_permissions.${scope} is ${String(level)}, not read, write or admin`);
    permissions[scope] = level as Level;
  }
  const events = doc?.default_events;
  if (!Array.isArray(events) || events.some((e) => typeof e !== 'string')) throw new Error(`${where}: default_events is not a list of event names`);
  return { permissions, events: events as string[] };
}

/** baton's `app.yml`, at the repository root. */
export function batonAppManifest(): AppManifest {
  const url = new URL('../../app.yml', import.meta.url);
  return parseAppManifest(readFileSync(url, 'utf8'), 'app.yml');
}
