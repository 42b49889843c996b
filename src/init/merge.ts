// A three-way merge of one file, by `git merge-file`: the user's text, what baton wrote
// last time (the base), what this version writes. Edits on both sides of the same lines
// are left as conflict markers, named, for the user to settle.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Merged {
  text: string;
  /** Places where both sides changed the same lines (marked in `text`). */
  conflicts: number;
}

export function mergeThreeWay(yours: string, base: string, theirs: string, labels: { yours: string; base: string; theirs: string }): Merged {
  const dir = mkdtempSync(join(tmpdir(), 'baton-update-'));
  try {
    const files = { yours: join(dir, 'yours'), base: join(dir, 'base'), theirs: join(dir, 'theirs') };
    writeFileSync(files.yours, yours);
    writeFileSync(files.base, base);
    writeFileSync(files.theirs, theirs);
    // No shell: labels and texts are arguments and files, never command text.
    const r = spawnSync('git', ['merge-file', '-L', labels.yours, '-L', labels.base, '-L', labels.theirs, files.yours, files.base, files.theirs], { encoding: 'utf8' });
    if (r.error) throw new Error(`git merge-file could not run (${r.error.message}); baton update needs git on PATH`);
    // Exit status: the number of conflicts (0 clean), negative on error.
    if (r.status === null || r.status < 0 || r.status > 127) throw new Error(`git merge-file failed: ${r.stderr.trim()}`);
    return { text: readFileSync(files.yours, 'utf8'), conflicts: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
