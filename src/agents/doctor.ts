// What `baton doctor` reports: for each backend, whether its CLI is here (path and
// version), whether credentials are (names only, never values), and so whether a worker
// could run it on this machine — all without calling a model.
import { execFile } from 'node:child_process';
import type { Backend } from '../manifest/types.ts';
import { BACKEND_IMPLS } from './backends/index.ts';
import { installCommand } from './backends/types.ts';
import { checkCredentials, findExecutable } from './preflight.ts';

export interface BackendReport {
  name: Backend;
  binary: string | null;
  /** Absolute path when found. */
  path: string | null;
  /** First line of `--version`, or why there is none. */
  version: string | null;
  /** The command that installs the pinned version. */
  install: string;
  /** Installed vs the version baton is tested with, in words; null for `command`. */
  pinned: string | null;
  credentials: { needed: string[]; present: string[]; logins: string[]; ok: boolean; notEnough: { name: string; advice: string }[]; problem?: string };
  runnable: boolean;
}

export interface ToolReport {
  name: string;
  path: string | null;
  version: string | null;
}

/** `<binary> --version`, first line, with a short time limit: some CLIs start slowly or hang. */
export function versionOf(path: string, env: NodeJS.ProcessEnv, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 }, (err, stdout, stderr) => {
      const first = (String(stdout).trim() || String(stderr).trim()).split('\n')[0] ?? '';
      if (err && (err as { killed?: boolean }).killed) resolve(`(no answer to --version within ${timeoutMs / 1000}s)`);
      else if (err && !first) resolve(`(--version failed: ${err.message.split('\n')[0]})`);
      else resolve(first || '(no version printed)');
    });
  });
}

/**
 * "not installed", "installed X, baton is tested with Y", or "X (the version baton is tested
 * with)": version lines differ per CLI (`codex-cli 0.169.0`, `2.1.332 (Claude Code)`), so the
 * pinned version is looked for as a whole word in the line.
 */
export function pinnedStatus(pinned: string | null, versionLine: string | null): string | null {
  if (pinned === null) return null;
  if (versionLine === null) return `not installed (baton is tested with ${pinned})`;
  const escaped = pinned.replace(/[.]/g, '\\.');
  // The version may end a sentence ("GitHub Copilot CLI 1.0.102."), but not be part of a longer one (1.0.1023, 1.0.102.4).
  if (new RegExp(`(^|[^0-9.])v?${escaped}($|[^0-9.]|\\.(?![0-9]))`).test(versionLine)) return `${pinned} (the version baton is tested with)`;
  return `installed ${versionLine}, baton is tested with ${pinned}`;
}

export async function checkBackends(env: NodeJS.ProcessEnv, cwd: string, timeoutMs?: number): Promise<BackendReport[]> {
  return Promise.all(
    Object.values(BACKEND_IMPLS).map(async (b): Promise<BackendReport> => {
      const creds = checkCredentials(b, env);
      const notEnough = creds.notEnough.map((name) => ({ name, advice: b.notEnough![name]! }));
      const credentials = { needed: b.credentials, present: creds.present, logins: creds.logins, ok: creds.ok, notEnough, ...(creds.problem ? { problem: creds.problem } : {}) };
      if (b.binary === null) return { name: b.name, binary: null, path: null, version: null, install: '', pinned: null, credentials, runnable: true };
      const path = findExecutable(b.binary, env, cwd) ?? null;
      const version = path ? await versionOf(path, env, timeoutMs) : null;
      return { name: b.name, binary: b.binary, path, version, install: installCommand(b) ?? '', pinned: pinnedStatus(b.version, path ? version : null), credentials, runnable: path !== null && creds.ok };
    }),
  );
}

export async function checkGit(env: NodeJS.ProcessEnv, cwd: string): Promise<ToolReport> {
  const path = findExecutable('git', env, cwd) ?? null;
  return { name: 'git', path, version: path ? await versionOf(path, env) : null };
}

