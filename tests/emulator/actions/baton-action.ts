// The `actions` map entry for baton's Action: this checkout's action.yml at the refs `baton init`
// writes (the major tag, and the release pin when this copy carries one, src/release-pin.ts).
// Keyed by `repo@ref`, never by the bare repository: a `uses:` of baton at any other ref is
// refused, as GitHub refuses a ref the repository does not have.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { batonAction } from '../../../src/release-pin.ts';
import { ACTION_REF, HOME_REPO } from '../../../src/names.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export function batonActionMap(dir: string): Record<string, string> {
  return { [ACTION_REF]: dir, [batonAction().ref]: dir };
}

/**
 * baton's Action as another release would ship it: this checkout's bundle and files beside a
 * package.json that says `version` (the bundle reads its version there, src/names.ts), mapped
 * at `ref`. What a repository pinned to another baton runs (tests/app/version-skew.test.ts).
 */
export function batonActionAt(version: string, ref = `${HOME_REPO}@v${version}`): { ref: string; map: Record<string, string>; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), `baton-action-${version}-`));
  for (const name of ['action.yml', 'agent-clis', 'schema', 'workflows-library']) symlinkSync(join(PROJECT_ROOT, name), join(dir, name));
  // The bundle is a copy: node resolves a symlinked entry point to its real path, whose ../package.json is this checkout's.
  mkdirSync(join(dir, 'dist'));
  copyFileSync(join(PROJECT_ROOT, 'dist', 'action.js'), join(dir, 'dist', 'action.js'));
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  return { ref, map: { [ref]: dir }, close: () => rmSync(dir, { recursive: true, force: true }) };
}
