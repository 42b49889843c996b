// The shapes of what `baton init` wrote over this repository's history (tests/fixtures/init-shapes/,
// made by its collect.ts), and a folder to hold one: for the upgrade tests.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface InitShape {
  commit: string;
  date: string;
  subject: string;
  mode: 'app' | 'actions';
  command: string;
  files: Record<string, string>;
}

const SHAPES_DIR = fileURLToPath(new URL('../fixtures/init-shapes/', import.meta.url));

/** The stored shapes, oldest first. */
export function initShapes(): Array<InitShape & { name: string }> {
  return readdirSync(SHAPES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), ...(JSON.parse(readFileSync(join(SHAPES_DIR, f), 'utf8')) as InitShape) }));
}

const dirs: string[] = [];
/** Removes the folders writeRepo made. */
export function removeRepos(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A folder holding `files` (path → text): a repository's working tree. */
export function writeRepo(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'baton-upgrade-'));
  dirs.push(d);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(d, path)), { recursive: true });
    writeFileSync(join(d, path), text);
  }
  return d;
}
