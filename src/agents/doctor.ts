// What `baton doctor` reports: for each backend, whether its CLI is here (path and
// version), whether credentials are (names only, never values), and so whether a worker
// could run it on this machine — all without calling a model.
import { execFile } from 'node:child_process';
import type { Backend } from '../manifest/types.ts';
import { BACKEND_IMPLS } from './backends/index.ts';
import { checkCredentials, findExecutable } from './preflight.ts';

export interface BackendReport {
  name: Backend;
  binary: string | null;
  /** Absolute path when found. */
  path: string | null;
  /** First line of `--version`, or why there is none. */
  version: string | null;
  install: string;
  credentials: { needed: string[]; present: string[]; logins: string[]; ok: boolean };
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

export async function checkBackends(env: NodeJS.ProcessEnv, cwd: string, timeoutMs?: number): Promise<BackendReport[]> {
  return Promise.all(
    Object.values(BACKEND_IMPLS).map(async (b): Promise<BackendReport> => {
      const creds = checkCredentials(b, env);
      const credentials = { needed: b.credentials, present: creds.present, logins: creds.logins, ok: creds.ok };
      if (b.binary === null) return { name: b.name, binary: null, path: null, version: null, install: b.install, credentials, runnable: true };
      const path = findExecutable(b.binary, env, cwd) ?? null;
      const version = path ? await versionOf(path, env, timeoutMs) : null;
      return { name: b.name, binary: b.binary, path, version, install: b.install, credentials, runnable: path !== null && creds.ok };
    }),
  );
}

export async function checkGit(env: NodeJS.ProcessEnv, cwd: string): Promise<ToolReport> {
  const path = findExecutable('git', env, cwd) ?? null;
  return { name: 'git', path, version: path ? await versionOf(path, env) : null };
}

