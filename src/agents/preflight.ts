// Checks made before an agent is started, so that a missing CLI or key fails in a second
// with a sentence saying what to do, not after a runner spent minutes on a confusing crash.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { InfrastructureCause } from '../engine/events.ts';
import type { AgentSpec } from '../manifest/types.ts';
import { installCommand, type AgentBackend } from './backends/types.ts';

/** A problem with the worker's setup (not the agent's work): nothing was run. */
export class WorkerSetupError extends Error {
  override name = 'WorkerSetupError';
  constructor(
    message: string,
    /** Set when the agent's backend cannot work here (its CLI missing, no credentials): a fallback may. */
    readonly infrastructure?: InfrastructureCause,
  ) {
    super(message);
  }
}

/** The absolute path of an executable, looked up like a shell does; undefined when absent. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  const candidates = name.includes('/') ? [isAbsolute(name) ? name : resolve(cwd, name)] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface CredentialCheck {
  ok: boolean;
  /** Names of the variables that are set (never their values). */
  present: string[];
  /** Stored logins found under $HOME. */
  logins: string[];
  /** Why the credentials that are set cannot work (the backend's own rule), when they cannot. */
  problem?: string;
  /** Set variables the CLI does not read (backend.notEnough), e.g. OPENAI_API_KEY for codex. */
  notEnough: string[];
  /** Switches set without their companions (CLAUDE_CODE_USE_VERTEX without CLOUD_ML_REGION…). */
  incomplete: { name: string; missing: string[] }[];
}

export function checkCredentials(backend: AgentBackend, env: NodeJS.ProcessEnv): CredentialCheck {
  const set = (n: string) => (env[n] ?? '') !== '';
  // A switch (CLAUDE_CODE_USE_VERTEX) counts only with the variables it needs beside it.
  const present = backend.credentials.filter((n) => set(n) && (backend.credentialCompanions?.[n] ?? []).every(set));
  const home = env.HOME ?? env.USERPROFILE ?? '';
  const logins = home ? backend.loginFiles.filter((f) => existsSync(join(home, f))) : [];
  const problem = backend.credentialProblem?.(env) ?? undefined;
  const found = backend.credentials.length === 0 || present.length > 0 || logins.length > 0;
  const notEnough = Object.keys(backend.notEnough ?? {}).filter(set);
  // A switch set without what it needs beside it: said as "X is set, but it also needs Y".
  const incomplete = Object.entries(backend.credentialCompanions ?? {}).filter(([n, needs]) => set(n) && !needs.every(set)).map(([n, needs]) => ({ name: n, missing: needs.filter((m) => !set(m)) }));
  return { ok: found && !problem, present, logins, notEnough, incomplete, ...(problem ? { problem } : {}) };
}

/** The program a spec starts: the backend's binary, or the first word of `run:`. */
export function programOf(backend: AgentBackend, spec: AgentSpec): string {
  if (backend.binary) return backend.binary;
  const first = spec.run?.[0];
  if (!first) throw new WorkerSetupError('the `command` agent has no `run:`; give the argv of the program to start, e.g. run: ["./scripts/agent.sh"]');
  return first;
}

/**
 * Where the agent runs, for what the messages tell a person to do: in a GitHub worker job
 * (install the CLI in the job, pass a repository secret) or on their own machine.
 */
export type SetupPlace = 'worker-job' | 'local';

/** Throws a WorkerSetupError naming what is missing and how to get it, there. */
export function preflight(backend: AgentBackend, spec: AgentSpec, env: NodeJS.ProcessEnv, cwd: string, place: SetupPlace = 'worker-job'): string {
  const program = programOf(backend, spec);
  const path = findExecutable(program, env, cwd);
  if (!path) {
    const local = place === 'local';
    throw new WorkerSetupError(
      backend.binary
        ? local
          ? `\`${program}\` (${backend.name}) is not on PATH: install it with \`${installCommand(backend)}\`, or give this agent another backend in the workflow's \`agents:\` (\`baton doctor\` lists what is ready here)`
          : `\`${program}\` is not on PATH; install it (${installCommand(backend)}) in the worker job before baton runs, or pick another backend in the manifest's \`agents:\``
        : `\`${program}\` (the \`run:\` of this \`command\` agent) was not found${program.includes('/') ? ` relative to ${cwd}` : ' on PATH'}, or is not executable`,
      'cli-missing',
    );
  }
  const creds = checkCredentials(backend, env);
  if (creds.problem) throw new WorkerSetupError(`${backend.name}: ${creds.problem}`, 'authentication');
  if (!creds.ok) {
    const names = backend.credentials;
    const hints = [
      ...creds.notEnough.map((n) => `; ${n} is set, but ${backend.notEnough![n]}`),
      ...creds.incomplete.map((c) => `; ${c.name} is set, but it also needs ${c.missing.join(' and ')}`),
    ].join('');
    const which = names.length === 1 ? names[0] : `one of ${names.join(', ')}`;
    const login = backend.loginFiles.length ? `, or sign in with \`${backend.binary}\` itself (it keeps the login in ~/${backend.loginFiles[0]})` : '';
    throw new WorkerSetupError(
      place === 'local'
        ? `${backend.name} needs credentials: set ${which} in your environment${login}${hints}`
        : `${backend.name} needs credentials: set ${which} in the worker's environment (in Actions: a repository secret passed with \`env:\`)${hints}`,
      'authentication',
    );
  }
  return path;
}
