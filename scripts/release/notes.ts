// Release notes: the CHANGELOG.md section of the version, printed for `gh release create
// --notes-file`. A release whose version has no section is refused: users read these notes
// before they move to a new major or let `@v1` move under them.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The body of `## [version]` (up to the next `## `), trimmed; null when there is none or it is empty. */
export function notesFor(changelog: string, version: string): string | null {
  const lines = changelog.split('\n');
  const head = lines.findIndex((l) => l.startsWith(`## [${version}]`));
  if (head < 0) return null;
  const end = lines.findIndex((l, i) => i > head && l.startsWith('## '));
  const body = lines.slice(head + 1, end < 0 ? undefined : end).join('\n').trim();
  return body || null;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const version = (process.argv[2] ?? '').replace(/^v/, '');
  const notes = notesFor(readFileSync(`${root}/CHANGELOG.md`, 'utf8'), version);
  if (!notes) {
    console.error(`release refused: CHANGELOG.md has no "## [${version}]" section (move the Unreleased notes under it)`);
    process.exit(1);
  }
  console.log(notes);
}
