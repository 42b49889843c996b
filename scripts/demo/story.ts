// The people around the run, played by the demo: the maintainer (@alice) who committed
// baton's workflows, opens and labels the issue and answers baton's question, and a CI
// service that runs the repository's tests on every push to a run branch and reports
// them as the commit status `CI`.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import type { Emulator } from '../../tests/emulator/emulator.ts';

const exec = promisify(execFile);

export const OWNER = 'acme';
export const REPO = 'widgets';
export const MAINTAINER = 'alice';
export const CI_USER = 'ci-bot';
const o = { owner: OWNER, repo: REPO };

/** Files under `dir`, by path relative to it. */
async function filesOf(dir: string, base = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, await filesOf(p, base));
    else out[relative(base, p).split('\\').join('/')] = await readFile(p, 'utf8');
  }
  return out;
}

const isBatonFile = (path: string) => path.startsWith('.agents/') || path.startsWith('.github/');

export function as(emu: Emulator, login: string): Octokit {
  return new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken(login) });
}

/** acme/widgets with its code; returns the files baton adds in a second commit. */
export async function createWidgets(emu: Emulator, repoDir: string): Promise<Record<string, string>> {
  const files = await filesOf(repoDir);
  const code = Object.fromEntries(Object.entries(files).filter(([p]) => !isBatonFile(p)));
  await emu.createRepo(OWNER, REPO, code, { message: 'widgets: slugify()' });
  emu.store.setRole(OWNER, REPO, MAINTAINER, 'admin');
  emu.store.setRole(OWNER, REPO, CI_USER, 'write');
  return Object.fromEntries(Object.entries(files).filter(([p]) => isBatonFile(p)));
}

const git = (cwd: string, ...args: string[]) =>
  exec('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: MAINTAINER, GIT_AUTHOR_EMAIL: `${MAINTAINER}@example.com`, GIT_COMMITTER_NAME: MAINTAINER, GIT_COMMITTER_EMAIL: `${MAINTAINER}@example.com` } });

/** The maintainer commits baton's files with git and pushes them to the default branch. */
export async function commitBaton(emu: Emulator, files: Record<string, string>, work: string): Promise<string> {
  const dir = join(work, 'maintainer');
  await exec('git', ['clone', '--quiet', emu.gitDir(OWNER, REPO), dir]);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '--quiet', '-m', 'Add baton: the worker workflow and the fix-issue workflow');
  await git(dir, 'push', '--quiet', 'origin', 'HEAD:main');
  return (await git(dir, 'rev-parse', 'HEAD')).stdout.trim();
}

export interface CiResult {
  sha: string;
  ok: boolean;
  description: string;
}

/**
 * CI: for a commit, runs the repository's tests (`node --test`) in a fresh export of its
 * tree and reports a commit status `CI`, pending first. Commits are tested one at a time,
 * in push order.
 */
export class Ci {
  private chain: Promise<void> = Promise.resolve();
  readonly results: CiResult[] = [];

  constructor(
    private readonly emu: Emulator,
    private readonly work: string,
    private readonly onResult: (r: CiResult) => void,
  ) {}

  test(sha: string): void {
    this.chain = this.chain.then(() => this.run(sha)).catch((err: unknown) => console.error(`CI could not test ${sha}: ${String(err)}`));
  }

  idle(): Promise<void> {
    return this.chain;
  }

  private async run(sha: string): Promise<void> {
    const ci = as(this.emu, CI_USER);
    const status = (state: 'pending' | 'success' | 'failure', description: string) =>
      ci.rest.repos.createCommitStatus({ ...o, sha, state, context: 'CI', description: description.slice(0, 140) });
    await status('pending', 'node --test');
    const dir = await mkdtemp(join(this.work, 'ci-'));
    try {
      const archive = join(dir, 'tree.tar');
      await exec('git', ['--git-dir', this.emu.gitDir(OWNER, REPO), 'archive', '--output', archive, sha]);
      await exec('tar', ['-xf', archive], { cwd: dir });
      let ok = true;
      let out = '';
      try {
        out = (await exec(process.execPath, ['--test'], { cwd: dir, env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' } })).stdout;
      } catch (err) {
        ok = false;
        out = (err as { stdout?: string }).stdout ?? String(err);
      }
      const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)`, 'm').exec(out)?.[1] ?? 0);
      const failed = [...out.matchAll(/^not ok \d+ - (.+)$/gm)].map((m) => m[1]!);
      const description = ok ? `${count('pass')} tests passed` : `${count('fail')} of ${count('tests')} tests failed: ${failed.join('; ')}`;
      await status(ok ? 'success' : 'failure', description);
      const r = { sha, ok, description };
      this.results.push(r);
      this.onResult(r);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** A temp directory for the demo's clones and CI exports. */
export function workDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'baton-demo-'));
}
