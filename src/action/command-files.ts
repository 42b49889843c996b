// The runner reads a step's command files (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
// GITHUB_STATE, GITHUB_STEP_SUMMARY) when the step ends. The agent runs inside the worker's
// step and can find and write them even without their variables (they sit in the runner's
// temp folder): a line `LD_PRELOAD=…` in GITHUB_ENV would load its code into the next
// `uses:` step — the artifact upload, which holds the runner's token (GitHub refuses only
// NODE_OPTIONS there) — and GITHUB_PATH would put its programs first. So the worker takes their content before the
// agent starts and puts it back, as new files, once the agent and everything it started
// are gone; only then does baton write its own outputs and summary.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

export const COMMAND_FILES = ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;

export interface CommandFilesSnapshot {
  restore(): void;
}

export function snapshotCommandFiles(env: NodeJS.ProcessEnv): CommandFilesSnapshot {
  const saved = new Map<string, Buffer>();
  for (const name of COMMAND_FILES) {
    const path = env[name];
    if (!path) continue;
    try {
      saved.set(path, readFileSync(path));
    } catch {
      saved.set(path, Buffer.alloc(0));
    }
  }
  return {
    restore() {
      for (const [path, content] of saved) {
        // Removed first: whatever the agent made of the path (a symlink too) is not written through.
        rmSync(path, { force: true, recursive: true });
        writeFileSync(path, content);
      }
    },
  };
}
