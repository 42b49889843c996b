// baton's own Action, pinned at release. The release workflow stamps the commit its version tag
// points at into action-pin.json (scripts/release/stamp-pin.ts) before it publishes, so an
// installed baton writes `uses: baton-dev/baton@<that commit> # vX.Y.Z`: the code of the
// release the user installed, which no later move of the major tag (`v1`) can change.
// A checkout of baton's repository has no stamp: there init falls back to the major tag and
// says so (src/cli/commands/init.ts). This file sits one level below the package root, in the
// sources and in the bundle alike, so the stamp is found relative to it (as names.ts finds package.json).
import { existsSync, readFileSync } from 'node:fs';
import { FULL_SHA } from './init/action-pins.ts';
import { ACTION_REF, HOME_REPO } from './names.ts';

export const RELEASE_PIN_FILE = 'action-pin.json';

export interface ReleasePin {
  /** The Action's repository (HOME_REPO). */
  repo: string;
  /** The release tag, `vX.Y.Z[-pre]`. */
  version: string;
  /** The full commit SHA the tag points at. */
  commit: string;
}

/** The Action `baton init` writes by default: the stamped pin, or (no stamp) the moving major tag. */
export interface BatonAction {
  /** `owner/repo@ref` */
  ref: string;
  /** The version comment after a SHA pin. */
  version?: string;
  /** False in a checkout with no stamp: `ref` is a tag that moves. */
  pinned: boolean;
}

export class ReleasePinError extends Error {}

/** The stamp, or null when there is none (a development checkout). A stamp that is there but wrong is an error, never a silent tag. */
export function readReleasePin(file: URL | string = new URL(`../${RELEASE_PIN_FILE}`, import.meta.url)): ReleasePin | null {
  if (!existsSync(file)) return null;
  let data: Partial<ReleasePin>;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as Partial<ReleasePin>;
  } catch (err) {
    throw new ReleasePinError(`${RELEASE_PIN_FILE} of this baton is not valid JSON (${(err as Error).message}); reinstall baton`);
  }
  if (data.repo !== HOME_REPO || typeof data.commit !== 'string' || !FULL_SHA.test(data.commit) || typeof data.version !== 'string' || !/^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(data.version)) {
    throw new ReleasePinError(`${RELEASE_PIN_FILE} of this baton is not one the release wrote (repo ${HOME_REPO}, version vX.Y.Z, a 40-hex commit); reinstall baton`);
  }
  return { repo: data.repo, version: data.version, commit: data.commit };
}

export function batonAction(pin: ReleasePin | null = readReleasePin()): BatonAction {
  return pin ? { ref: `${pin.repo}@${pin.commit}`, version: pin.version, pinned: true } : { ref: ACTION_REF, pinned: false };
}
