// Whether a path component is one git itself would take for its own directory. Git refuses to
// check such paths out (verify_path in git's read-cache.c, with is_ntfs_dotgit and
// is_hfs_dotgit in path.c and utf8.c, the fixes of CVE-2014-9390 and CVE-2019-1353): `.git` in
// any letter case, with trailing dots or spaces or an NTFS stream suffix (`.git::$INDEX_ALLOCATION`)
// as Windows ignores them, the NTFS short name `git~1`, and with the code points HFS+ ignores
// spliced in (`.g\u200cit`). A worker result is written by an agent that read untrusted text,
// so baton refuses all of them, on every platform, in every component of a path.

/** Code points HFS+ drops when it compares names (git's utf8.c, next_hfs_char). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * A path component as a case-insensitive file system (macOS, Windows) sees it: lower case,
 * without the code points HFS+ ignores, an NTFS stream suffix, or trailing dots and spaces.
 */
export function comparableName(component: string): string {
  let name = component.replace(HFS_IGNORED, '').toLowerCase();
  // NTFS: an alternate data stream suffix, then trailing dots and spaces, do not count.
  const stream = name.indexOf(':');
  if (stream >= 0) name = name.slice(0, stream);
  return name.replace(/[. ]+$/, '');
}

export function isGitComponent(component: string): boolean {
  const name = comparableName(component);
  return name === '.git' || /^git~\d+$/.test(name);
}

/** True when any component of a `/`-separated path is git's own directory in some spelling. */
export function touchesGitDir(path: string): boolean {
  return path.split('/').some(isGitComponent);
}
