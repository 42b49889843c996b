// What a release tag means: `vMAJOR.MINOR.PATCH` (a pre-release has a `-suffix`), which must
// be the version in package.json. Shared by the release scripts and their tests.
import { readFileSync } from 'node:fs';

export interface ReleaseTag {
  tag: string;
  version: string;
  /** The tag the Action is used by (`v1`), moved by every stable release of that major. */
  major: string;
  prerelease: boolean;
  parts: [number, number, number];
}

export function parseTag(tag: string): ReleaseTag | null {
  const m = /^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(tag);
  if (!m) return null;
  return {
    tag,
    version: tag.slice(1),
    major: `v${m[1]}`,
    prerelease: Boolean(m[4]),
    parts: [Number(m[1]), Number(m[2]), Number(m[3])],
  };
}

export function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { version: string }).version;
}

/** A tag that can be released from this tree, or an error that says what is wrong. */
export function checkTag(tag: string, root: string): ReleaseTag {
  const t = parseTag(tag);
  if (!t) throw new Error(`"${tag}" is not a release tag: expected vMAJOR.MINOR.PATCH, e.g. v1.2.0`);
  const version = packageVersion(root);
  if (t.version !== version) throw new Error(`tag ${tag} does not match package.json version ${version}: bump the version (npm version ${t.version} --no-git-tag-version) and tag that commit`);
  return t;
}

/** Newer-than for stable versions (pre-releases never move the major tag). */
export function newer(a: ReleaseTag, b: ReleaseTag): boolean {
  for (let i = 0; i < 3; i++) if (a.parts[i] !== b.parts[i]) return a.parts[i]! > b.parts[i]!;
  return false;
}
