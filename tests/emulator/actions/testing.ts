// Test support for the runner on its own: a bare repository made from a map of files,
// and a fake host that records minted tokens and webhooks. The full emulator replaces
// the fake host in the end-to-end tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { git } from './git.ts';
import type { ActionsHost, TokenPermissions } from './host.ts';

export interface TempRepo {
  owner: string;
  repo: string;
  gitDir: string;
  /** Commits `files` on top of `branch` (default main) and returns the new sha. */
  commit(files: Record<string, string>, branch?: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function tempRepo(files: Record<string, string>, owner = 'acme', repo = 'widgets'): Promise<TempRepo> {
  const root = await mkdtemp(join(tmpdir(), 'baton-actions-repo-'));
  const gitDir = join(root, `${repo}.git`);
  await git(['init', '-q', '--bare', '--initial-branch=main', gitDir]);
  const commit = async (add: Record<string, string>, branch = 'main'): Promise<string> => {
    const work = await mkdtemp(join(root, 'work-'));
    try {
      await git(['init', '-q', `--initial-branch=${branch}`], { cwd: work });
      const exists = (await git(['--git-dir', gitDir, 'for-each-ref', `refs/heads/${branch}`])).trim() !== '';
      if (exists) {
        await git(['fetch', '-q', gitDir, branch], { cwd: work });
        await git(['reset', '-q', '--hard', 'FETCH_HEAD'], { cwd: work });
      }
      for (const [path, content] of Object.entries(add)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), content);
      }
      await git(['add', '-A'], { cwd: work });
      await git(['commit', '-q', '-m', `update ${Object.keys(add).join(', ')}`], { cwd: work });
      await git(['push', '-q', gitDir, `HEAD:refs/heads/${branch}`], { cwd: work });
      return (await git(['rev-parse', 'HEAD'], { cwd: work })).trim();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  };
  await commit(files);
  return { owner, repo, gitDir, commit, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export interface FakeHost extends ActionsHost {
  minted: Array<{ token: string; permissions: TokenPermissions }>;
  revoked: string[];
  events: Array<{ event: string; payload: Record<string, unknown> }>;
}

export const ACTOR = {
  login: 'octocat',
  id: 1,
  node_id: 'U_1',
  avatar_url: 'https://example.test/a/1',
  gravatar_id: '',
  url: 'http://127.0.0.1/users/octocat',
  html_url: 'http://127.0.0.1/octocat',
  followers_url: 'http://127.0.0.1/users/octocat/followers',
  following_url: 'http://127.0.0.1/users/octocat/following{/other_user}',
  gists_url: 'http://127.0.0.1/users/octocat/gists{/gist_id}',
  starred_url: 'http://127.0.0.1/users/octocat/starred{/owner}{/repo}',
  subscriptions_url: 'http://127.0.0.1/users/octocat/subscriptions',
  organizations_url: 'http://127.0.0.1/users/octocat/orgs',
  repos_url: 'http://127.0.0.1/users/octocat/repos',
  events_url: 'http://127.0.0.1/users/octocat/events{/privacy}',
  received_events_url: 'http://127.0.0.1/users/octocat/received_events',
  type: 'User',
  site_admin: false,
};

export function fakeHost(repo: TempRepo): FakeHost {
  let n = 0;
  const host: FakeHost = {
    apiUrl: 'http://127.0.0.1:9',
    serverUrl: 'http://127.0.0.1:9',
    minted: [],
    revoked: [],
    events: [],
    gitDir(owner, name) {
      if (owner !== repo.owner || name !== repo.repo) throw new Error('Not Found');
      return repo.gitDir;
    },
    mintToken(_owner, _repo, permissions) {
      const token = `ghs_fake${++n}`;
      host.minted.push({ token, permissions });
      return token;
    },
    revokeToken(token) {
      host.revoked.push(token);
    },
    emit(event, payload) {
      host.events.push({ event, payload });
    },
    repository(owner, name) {
      return { id: 42, name, full_name: `${owner}/${name}`, owner: ACTOR, default_branch: 'main' };
    },
  };
  return host;
}
