// What a hosted runner gives every step: its directories, the GITHUB_* and RUNNER_*
// variables and the `runner` context. Nothing of the emulator's own environment leaks
// in except the basics a process needs (PATH, locale), so a GITHUB_TOKEN of the machine
// running the tests never reaches a step that was not given one.
import { join } from 'node:path';
import type { JobRequest } from './job.ts';
import { refName } from './triggers.ts';

export const RUNNER_NAME = 'GitHub Actions 1';

/** Variables of the emulator's environment a step process inherits. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TMPDIR', 'SHELL', 'USER', 'TZ', 'SystemRoot'];

export interface JobDirs {
  /** RUNNER_WORKSPACE: the job's directory. */
  root: string;
  /** GITHUB_WORKSPACE, where checkout puts the repository. */
  workspace: string;
  /** RUNNER_TEMP */
  temp: string;
  /** The per-step command files (GITHUB_OUTPUT, GITHUB_ENV…). */
  files: string;
  /** HOME: per job, so tools' caches and configs stay inside the run. */
  home: string;
  toolCache: string;
}

export function jobDirs(root: string): JobDirs {
  return {
    root,
    workspace: join(root, 'work'),
    temp: join(root, 'temp'),
    files: join(root, 'files'),
    home: join(root, 'home'),
    toolCache: join(root, 'toolcache'),
  };
}

export function runnerContext(dirs: JobDirs): Record<string, string> {
  return { os: 'Linux', arch: 'X64', name: RUNNER_NAME, environment: 'github-hosted', temp: dirs.temp, tool_cache: dirs.toolCache, workspace: dirs.root };
}

export function runnerVariables(req: JobRequest, dirs: JobDirs): Record<string, string> {
  const { run, host, workflow, def } = req;
  const env: Record<string, string> = {};
  for (const k of INHERITED) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  Object.assign(env, {
    HOME: dirs.home,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTOR: String(run.actor.login ?? ''),
    GITHUB_ACTOR_ID: String(run.actor.id ?? ''),
    GITHUB_TRIGGERING_ACTOR: String(run.actor.login ?? ''),
    GITHUB_API_URL: host.apiUrl,
    GITHUB_GRAPHQL_URL: `${host.apiUrl}/graphql`,
    GITHUB_SERVER_URL: host.serverUrl,
    GITHUB_EVENT_NAME: run.event,
    GITHUB_EVENT_PATH: req.eventPath,
    GITHUB_JOB: def.id,
    GITHUB_REF: run.ref,
    GITHUB_REF_NAME: refName(run.ref),
    GITHUB_HEAD_REF: run.headRef ?? '',
    GITHUB_BASE_REF: run.baseRef ?? '',
    GITHUB_REF_TYPE: run.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
    GITHUB_REPOSITORY: `${run.owner}/${run.repo}`,
    GITHUB_REPOSITORY_OWNER: run.owner,
    GITHUB_RUN_ID: String(run.id),
    GITHUB_RUN_NUMBER: String(run.runNumber),
    GITHUB_RUN_ATTEMPT: String(run.runAttempt),
    GITHUB_SHA: run.headSha,
    GITHUB_WORKFLOW: workflow.name,
    GITHUB_WORKFLOW_REF: `${run.owner}/${run.repo}/${run.path}@${run.ref}`,
    GITHUB_WORKFLOW_SHA: run.headSha,
    GITHUB_WORKSPACE: dirs.workspace,
    GITHUB_RETENTION_DAYS: '90',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_NAME,
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_TEMP: dirs.temp,
    RUNNER_TOOL_CACHE: dirs.toolCache,
    RUNNER_WORKSPACE: dirs.root,
  });
  // The test's own additions (a fake agent CLI on PATH…) come last.
  return Object.assign(env, req.options.env ?? {});
}
