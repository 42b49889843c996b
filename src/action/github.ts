// The Actions-only side of the GitHub host: an Octokit authenticated with the job's token
// and the RepoContext the App's handlers take. Our own small adapter in place of Probot's
// (DESIGN §3: the handlers are shared, only the wiring differs). Retries follow what
// Probot's plugins do for the App: 5xx and rate limits with `retry-after`, a few times.
import { Octokit } from '@octokit/rest';
import type { GitHubClient, RepoContext } from '../hosts/github/client.ts';
import type { Log } from '../app/runs.ts';
import * as core from '@actions/core';

/** The App's RepoContext, with a token and API URL in place of an authenticated client. */
export interface GitHubSetup extends Omit<RepoContext, 'octokit'> {
  token: string;
  apiUrl: string;
}

const RETRIES = 3;

function retryDelayMs(err: unknown, attempt: number): number | undefined {
  const e = err as { status?: number; response?: { headers?: Record<string, string | undefined> } };
  const status = e.status;
  const headers = e.response?.headers ?? {};
  const after = Number(headers['retry-after']);
  const limited = status === 429 || (status === 403 && (headers['x-ratelimit-remaining'] === '0' || Number.isFinite(after)));
  if (limited) return Number.isFinite(after) ? after * 1000 : 60_000;
  if (status !== undefined && status >= 500) return 250 * 2 ** attempt;
  return undefined;
}

export function makeOctokit(token: string, apiUrl: string): GitHubClient {
  const octokit = new Octokit({ auth: token, baseUrl: apiUrl, userAgent: 'baton-action' });
  octokit.hook.wrap('request', async (request, options) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(options);
      } catch (err) {
        const wait = attempt < RETRIES ? retryDelayMs(err, attempt) : undefined;
        // A job has minutes, not hours: a long rate-limit wait fails the step instead.
        if (wait === undefined || wait > 120_000) throw err;
        core.info(`baton: ${options.method} ${options.url} failed (${(err as { status?: number }).status}); retrying in ${Math.round(wait / 1000)}s`);
        await new Promise((r) => setTimeout(r, wait));
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
    workerWorkflow: s.workerWorkflow,
    ...(s.stateSecret ? { stateSecret: s.stateSecret } : {}),
  };
}

/** The handlers' log, as workflow commands (warnings become annotations). */
export const actionLog: Log = {
  info: (msg) => core.info(msg),
  warn: (msg) => core.warning(msg),
};
