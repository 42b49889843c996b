// The Actions-only side of the GitHub host: an Octokit authenticated with the job's token
// and the RepoContext the App's handlers take. Our own small adapter in place of Probot's
// (the handlers are shared, only the wiring differs: docs/architecture.md §1). Retries follow what
// Probot's plugins do for the App: 5xx and every shape of rate limit (rate-limit.ts), a few times.
import { Octokit } from '@octokit/rest';
import type { GitHubClient, RepoContext } from '../hosts/github/client.ts';
import type { Log } from '../app/runs.ts';
import * as core from '@actions/core';
import { retryDelayMs } from './rate-limit.ts';
import { GITHUB_TOKEN_LOGIN } from '../hosts/github/workflow-files.ts';

/** The App's RepoContext, with a token and API URL in place of an authenticated client. */
export interface GitHubSetup extends Omit<RepoContext, 'octokit'> {
  token: string;
  apiUrl: string;
}

const RETRIES = 3;
/** A job has minutes, not hours: a longer rate-limit wait fails the step instead. */
const LONGEST_WAIT_MS = 120_000;

export type Sleep = (ms: number) => Promise<void>;
const sleep: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `wait`: how a retry waits (tests pass a scaled clock; the wait is never skipped). */
export function makeOctokit(token: string, apiUrl: string, wait: Sleep = sleep): GitHubClient {
  const octokit = new Octokit({ auth: token, baseUrl: apiUrl, userAgent: 'baton-action' });
  octokit.hook.wrap('request', async (request, options) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(options);
      } catch (err) {
        const ms = attempt < RETRIES ? retryDelayMs(err, attempt) : undefined;
        if (ms === undefined || ms > LONGEST_WAIT_MS) throw err;
        core.info(`baton: ${options.method} ${options.url} failed (${(err as { status?: number }).status}); retrying in ${Math.round(ms / 1000)}s`);
        await wait(ms);
      }
    }
  });
  // The handlers are typed against Probot's Octokit; @octokit/rest has the same request
  // and paginate, which is all they use.
  return octokit as unknown as GitHubClient;
}

export function repoContextOf(s: GitHubSetup, octokit: GitHubClient = makeOctokit(s.token, s.apiUrl)): RepoContext {
  return {
    octokit,
    owner: s.owner,
    repo: s.repo,
    defaultBranch: s.defaultBranch,
    botLogin: s.botLogin,
    // No `bot-login` given: the token is the job's GITHUB_TOKEN (inputs.ts); with one, an App's token.
    writesAs: s.botLogin === GITHUB_TOKEN_LOGIN ? 'github-token' : 'app-token',
    workerWorkflow: s.workerWorkflow,
    ...(s.stateSecret ? { stateSecret: s.stateSecret } : {}),
    ...(s.keepBranches ? { keepBranches: true } : {}),
  };
}

/** The handlers' log, as workflow commands (warnings become annotations). */
export const actionLog: Log = {
  info: (msg) => core.info(msg),
  warn: (msg) => core.warning(msg),
};
