// `uses:` by tag in the workflows baton wrote. The worker, apply and run jobs hold tokens that
// write to the repository, and a tag (v1, v7.0.1) runs whatever its owner points it at next:
// "Pinning an action to a full length commit SHA is currently the only way to use an action
// as an immutable release" (docs.github.com/en/actions/security-guides/security-hardening-for-github-actions#using-third-party-actions).
// `baton init` writes SHA pins; this finds the ones an older baton, a hand edit or
// `--action-ref` left on a tag. Shared by the Action's validate mode and `baton doctor`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FULL_SHA } from '../init/action-pins.ts';
import { usesLines } from '../init/uses-lines.ts';
import { ACTIONS_ONLY_WORKFLOW } from './warn-token.ts';

export const WORKER_WORKFLOW = '.github/workflows/baton-worker.yml';
/** Where `baton init` records the files it wrote (src/init/base.ts). */
const INIT_RECORD = '.agents/baton-init.json';

export interface PinWarning {
  file: string;
  line: number;
  column: number;
  /** The `uses:` value, `owner/repo@ref`. */
  uses: string;
  title: string;
  message: string;
}

/** Warnings for workflow files (path → text). */
export function pinWarnings(files: Record<string, string>): PinWarning[] {
  const out: PinWarning[] = [];
  for (const [file, text] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    for (const u of usesLines(text)) {
      if (FULL_SHA.test(u.ref)) continue;
      const uses = `${u.name}@${u.ref}`;
      out.push({
        file,
        line: u.index + 1,
        column: u.prefix.length + 1,
        uses,
        title: 'action not pinned to a commit',
        message:
          `${file}:${u.index + 1}: \`uses: ${uses}\` is not pinned to a full commit SHA: whoever can move that ref changes what this job runs with its token. ` +
          `Run \`baton update\` with baton from npm (it pins GitHub's actions and baton's Action) or write ${u.name}@<40-hex sha> # <version>`,
      });
    }
  }
  return out;
}

/** baton's workflow files in a checkout: the worker, baton.yml, and any other workflow init recorded writing. */
export function batonWorkflowFiles(root: string): Record<string, string> {
  const paths = new Set([WORKER_WORKFLOW, ACTIONS_ONLY_WORKFLOW]);
  try {
    const record = JSON.parse(readFileSync(join(root, INIT_RECORD), 'utf8')) as { files?: unknown };
    if (record.files && typeof record.files === 'object') {
      for (const p of Object.keys(record.files)) if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(p)) paths.add(p);
    }
  } catch {
    // No record (a repository set up by hand, or an older baton): the two files baton always writes.
  }
  const files: Record<string, string> = {};
  for (const p of paths) if (existsSync(join(root, p))) files[p] = readFileSync(join(root, p), 'utf8');
  return files;
}

export function pinWarningsIn(root: string): PinWarning[] {
  return pinWarnings(batonWorkflowFiles(root));
}
