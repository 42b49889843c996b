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
    // A step's `npm install -g` (the worker workflow installs agent CLIs when the runner lacks
    // the pinned version) lands in the job's own folder, as on a throwaway hosted runner, never
    // in the machine running the tests, where a real CLI would then shadow the fakes.
    npm_config_prefix: join(dirs.root, 'npm-global'),
    // and fetches nothing: a test whose runner lacks a fake CLI fails at that install step,
    // in its job's log, instead of downloading the real CLI (hundreds of MB) in the background.
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_fetch_retries: '0',
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

/**
 * What the runner adds to the environment of a JavaScript action's process, and of no
 * `run:` step: the Actions runtime service's URL and token (artifacts, caches, results),
 * and with `permissions: id-token: write` the OIDC request URL and token. As in
 * actions/runner, src/Runner.Worker/Handlers/NodeScriptActionHandler.cs ("Add Actions
 * Runtime server info": ACTIONS_RUNTIME_URL, ACTIONS_RUNTIME_TOKEN, ACTIONS_CACHE_URL, and
 * ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN only when the job may mint ID tokens), while
 * ScriptHandler (`run:`) adds none of them. ACTIONS_RESULTS_URL reaches the same
 * processes through the runtime context. The emulator serves none of these URLs.
 */
export function actionRuntimeVariables(serverUrl: string, runtimeToken: string, idToken: boolean): Record<string, string> {
  const env: Record<string, string> = {
    ACTIONS_RUNTIME_URL: `${serverUrl}/_services/pipelines/`,
    ACTIONS_RUNTIME_TOKEN: runtimeToken,
    ACTIONS_CACHE_URL: `${serverUrl}/_services/artifactcache/`,
    ACTIONS_RESULTS_URL: `${serverUrl}/_services/results/`,
  };
  if (idToken) {
    env.ACTIONS_ID_TOKEN_REQUEST_URL = `${serverUrl}/_services/oidc/token?api-version=2.0`;
    env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = runtimeToken;
  }
  return env;
}
