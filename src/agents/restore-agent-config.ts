// The door before each agent starts: every path of the agent configuration table
// (agent-config-paths.ts) is put back as the run's base commit has it. What a maintainer
// committed stays and is read; what a step wrote since (an earlier step that listed it in
// `protected-paths`, a failed attempt's checkpoint, this attempt's previous invocation) is
// undone, so no agent's writes can steer a later agent. Ignored files count too: a root
// `.env` is usually in .gitignore and aider reads it all the same.
//
// git runs as collectChanges runs it (changes.ts): a private git directory, the checkout's
// objects borrowed read-only, nothing of the checkout's config. Files are written without
// following symlinks an agent may have planted on the way.
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentConfigRow } from './agent-config-paths.ts';
import { privateGit, type Checkout } from './changes.ts';

export interface Restored {
  /** Paths put back to the run's base content. */
  restored: string[];
  /** Paths the run's base does not have, removed. */
  removed: string[];
}

export class RunBaseMissingError extends Error {
  override name = 'RunBaseMissingError';
}

/**
 * Puts every agent configuration path of the checkout back as `runBase` has it. Throws
 * RunBaseMissingError when the checkout does not hold `runBase` (a shallow clone).
 */
export function restoreAgentConfig(checkout: Checkout, runBase: string): Restored {
  const tmp = mkdtempSync(join(tmpdir(), 'baton-restore-'));
  try {
    const git = privateGit(checkout, tmp);
    let base: string;
    try {
      base = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${runBase}^{commit}`]).toString().trim();
    } catch {
      throw new RunBaseMissingError(
        `the run's base commit ${runBase} is not in the checkout at ${checkout.root}, so baton cannot put agent configuration back as it was before the agent starts; fetch the whole history (actions/checkout with fetch-depth: 0, as the worker workflow \`baton init\` writes does)`,
      );
    }
    // What the run's base has: "<mode> <type> <sha>\t<path>".
    const atBase = new Map<string, { mode: string; sha: string }>();
    for (const rec of git(['ls-tree', '-r', '-z', '--full-tree', base]).toString('utf8').split('\0')) {
      const m = /^(\d+) (\w+) ([0-9a-f]+)\t([\s\S]+)$/.exec(rec);
      if (m && m[2] === 'blob' && agentConfigRow(m[4]!)) atBase.set(m[4]!, { mode: m[1]!, sha: m[3]! });
    }
    // What the work tree has, ignored files included (no exclude rules given).
    const present = git(['ls-files', '-z', '--others', '--cached']).toString('utf8').split('\0').filter(Boolean);
    const removed: string[] = [];
    for (const path of present) {
      if (!agentConfigRow(path) || atBase.has(path)) continue;
      rmSync(join(checkout.root, path), { force: true, recursive: true });
      removed.push(path);
    }
    // Folders of the table the agent made into a file or a link elsewhere: gone, then rebuilt.
    const restored: string[] = [];
    for (const [path, { mode, sha }] of atBase) {
      const content = git(['cat-file', 'blob', sha]);
      writeInside(checkout.root, path, content, mode);
      restored.push(path);
    }
    return { restored, removed };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Writes `path` under `root`, replacing any symlink or file on the way by a real folder. */
function writeInside(root: string, path: string, content: Buffer, mode: string): void {
  const parts = path.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) rmSync(dir, { force: true });
    if (!st || !st.isDirectory()) mkdirSync(dir);
  }
  const file = join(root, path);
  rmSync(file, { force: true, recursive: true });
  if (mode === '120000') symlinkSync(content.toString('utf8'), file);
  else writeFileSync(file, content, { mode: mode === '100755' ? 0o755 : 0o644 });
}
