/**
 * GitHub (or GitHub Enterprise Server) as a target, with credentials from the environment:
 * - `BATON_CONFORMANCE_APP_ID` and `BATON_CONFORMANCE_PRIVATE_KEY` (the PEM, or a path to it),
 *   optionally `BATON_CONFORMANCE_INSTALLATION_ID`: baton's App, installed on the sandbox with
 *   app.yml's permissions (so without `workflows`), and its JWT;
 * - `GITHUB_TOKEN`: a person's token that may write workflow files and the default branch (a
 *   classic token with `repo` and `workflow`, or a fine-grained one with contents and workflows
 *   write). Without App credentials it is also the `actor`.
 * A role without credentials skips the scenarios that need it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { signAppJwt } from '../../../tests/emulator/app-jwt.ts';
import type { Identities, LimitMet, Role, Target } from '../types.ts';
import { kitOctokit } from './octokit.ts';

export interface GitHubOptions {
  owner: string;
  repo: string;
  apiUrl: string;
  env: NodeJS.ProcessEnv;
  /** What to wait between two looks at a workflow run (default: POLL_SECONDS). */
  settle?: () => Promise<boolean>;
}

/** How long to wait between two looks at a workflow run on GitHub. */
export const POLL_SECONDS = 10;

const pollInterval = async (): Promise<boolean> => {
  await new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
  return false;
};

/** The marker a repository's description must carry before the kit writes to it (see docs/conformance.md). */
export const SANDBOX_MARKER = 'baton-conformance';

export async function githubTarget({ owner, repo, apiUrl, env, settle = pollInterval }: GitHubOptions): Promise<Target> {
  const limitsMet: LimitMet[] = [];
  const identities: Partial<Identities> = {};
  const missing: Partial<Record<Role, string>> = {};
  let appPermissions: Record<string, string> = {};

  const appId = env.BATON_CONFORMANCE_APP_ID;
  const keyText = env.BATON_CONFORMANCE_PRIVATE_KEY;
  if (appId !== undefined && appId !== '' && keyText !== undefined && keyText !== '') {
    const pem = keyText.includes('-----BEGIN') ? keyText.replace(/\\n/g, '\n') : readKey(keyText);
    const appJwt = kitOctokit(apiUrl, () => signAppJwt(appId, pem), limitsMet);
    const installationId = env.BATON_CONFORMANCE_INSTALLATION_ID || String((await appJwt.request('GET /repos/{owner}/{repo}/installation', { owner, repo })).data.id);
    const { data } = await appJwt.request('POST /app/installations/{installation_id}/access_tokens', { installation_id: Number(installationId), repositories: [repo] });
    appPermissions = { ...(data.permissions as Record<string, string>) };
    identities.appJwt = appJwt;
    identities.app = kitOctokit(apiUrl, data.token, limitsMet);
    identities.actor = identities.app;
  } else {
    const why = 'no App credentials (BATON_CONFORMANCE_APP_ID, BATON_CONFORMANCE_PRIVATE_KEY)';
    missing.app = why;
    missing.appJwt = why;
  }
  const token = env.GITHUB_TOKEN;
  if (token !== undefined && token !== '') {
    identities.maintainer = kitOctokit(apiUrl, token, limitsMet);
    identities.actor ??= identities.maintainer;
  } else {
    missing.maintainer = 'no GITHUB_TOKEN with the workflow scope for the maintainer';
  }
  if (identities.actor === undefined) throw new Error('no credentials: set BATON_CONFORMANCE_APP_ID and BATON_CONFORMANCE_PRIVATE_KEY, or GITHUB_TOKEN');

  const { data: repository } = await identities.actor.request('GET /repos/{owner}/{repo}', { owner, repo });
  if (!(repository.description ?? '').includes(SANDBOX_MARKER)) {
    throw new Error(`${owner}/${repo} is not marked as a sandbox: the kit writes to its default branch, so its description must contain "${SANDBOX_MARKER}"`);
  }
  return { kind: 'github', owner, repo, identities, missing, appPermissions, serves: () => true, limitsMet, settle, close: async () => {} };
}

function readKey(path: string): string {
  if (!existsSync(path)) throw new Error('BATON_CONFORMANCE_PRIVATE_KEY is neither a PEM nor the path of one');
  return readFileSync(path, 'utf8');
}
