// Release step, before the package is packed: stamp the commit the release tag points at into
// action-pin.json, the pin `baton init` and `baton update` write for baton's own Action
// (src/release-pin.ts). The file is not committed; the package ships it (package.json `files`).
// `tsx scripts/release/stamp-pin.ts v1.2.0`
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOME_REPO } from '../../src/names.ts';
import { readReleasePin, RELEASE_PIN_FILE, type ReleasePin } from '../../src/release-pin.ts';
import { parseTag } from './version-tag.ts';

/** Writes `<cwd>/action-pin.json` for `tag` and returns the pin, read back through the reader init uses. */
export function stampPin(cwd: string, tag: string): ReleasePin {
  if (!parseTag(tag)) throw new Error(`"${tag}" is not a release tag (vX.Y.Z)`);
  // ^{commit}: an annotated tag's own object is not what `uses:` resolves; the commit is.
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const commit = git('rev-parse', '--verify', `refs/tags/${tag}^{commit}`);
  // The package is built from the checkout: a pin to another commit would name code it was not built from.
  const head = git('rev-parse', '--verify', 'HEAD^{commit}');
  if (head !== commit) throw new Error(`${tag} is ${commit}, but the checkout is at ${head}: stamp from the tag's checkout`);
  const file = join(cwd, RELEASE_PIN_FILE);
  const note = 'Written by the release (scripts/release/stamp-pin.ts): the commit baton init pins baton\'s Action to.';
  writeFileSync(file, JSON.stringify({ '//': note, repo: HOME_REPO, version: tag, commit }, null, 2) + '\n');
  const pin = readReleasePin(file);
  if (!pin || pin.commit !== commit) throw new Error(`${RELEASE_PIN_FILE} does not read back as written`);
  return pin;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const pin = stampPin(process.cwd(), process.argv[2] ?? '');
    console.log(`${RELEASE_PIN_FILE}: ${pin.repo}@${pin.commit} # ${pin.version}`);
  } catch (e) {
    console.error(`stamping the Action pin failed: ${(e as Error).message}`);
    process.exit(1);
  }
}
