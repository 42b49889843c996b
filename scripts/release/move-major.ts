// Release step last: move the major tag (v1) the Action is used by (`uses: baton-dev/baton@v1`)
// to the tag just released, and push it. Only a stable release newer than every other stable
// tag of that major moves it: a patch of an older minor or a pre-release leaves `@v1` alone.
// `tsx scripts/release/move-major.ts v1.2.0 [--remote origin]`
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { newer, parseTag, type ReleaseTag } from './version-tag.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** What happened, for the log: moved, or why not. */
export function moveMajor(cwd: string, tag: string, remote = 'origin'): string {
  const t = parseTag(tag);
  if (!t) throw new Error(`"${tag}" is not a release tag`);
  if (t.prerelease) return `${tag} is a pre-release: ${t.major} stays where it is`;
  const sameMajor = git(cwd, 'tag', '--list', `${t.major}.*`).split('\n').map(parseTag)
    .filter((o): o is ReleaseTag => o !== null && !o.prerelease && o.major === t.major);
  const newest = sameMajor.find((o) => newer(o, t));
  if (newest) return `${newest.tag} is newer than ${tag}: ${t.major} stays on the newest release`;
  const commit = git(cwd, 'rev-parse', `${tag}^{commit}`);
  git(cwd, 'tag', '--force', t.major, commit);
  git(cwd, 'push', '--force', remote, `refs/tags/${t.major}`);
  return `${t.major} moved to ${tag} (${commit.slice(0, 12)})`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const r = args.indexOf('--remote');
  try {
    console.log(moveMajor(process.cwd(), args[0] ?? '', r >= 0 ? args[r + 1] : 'origin'));
  } catch (e) {
    console.error(`moving the major tag failed: ${(e as Error).message}`);
    process.exit(1);
  }
}
