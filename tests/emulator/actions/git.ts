// The little git the runner needs, always through the git CLI against the bare repo so
// that what a run sees is exactly what a clone sees. Every call has a time limit.
import { execFile } from 'node:child_process';

const GIT_TIMEOUT_MS = 20_000;

/** Identity and isolation for every git subprocess: no user config, no prompts. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'github-actions[bot]',
    GIT_AUTHOR_EMAIL: '41898282+github-actions[bot]@users.noreply.github.com',
    GIT_COMMITTER_NAME: 'github-actions[bot]',
    GIT_COMMITTER_EMAIL: '41898282+github-actions[bot]@users.noreply.github.com',
    ...extra,
  };
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export function git(args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: opts.cwd, env: gitEnv(opts.env), timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(new GitError(`git ${args.join(' ')} failed: ${stderr.trim() || err.message}`, stderr));
        else resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export interface ResolvedRef {
  sha: string;
  /** Full ref name, e.g. refs/heads/main. */
  ref: string;
  /** Short name as GitHub puts in head_branch. */
  name: string;
}

/** Resolves a branch or tag name (or a full refs/… name) like the dispatch endpoint does. */
export async function resolveRef(gitDir: string, ref: string): Promise<ResolvedRef | undefined> {
  const candidates = ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const full of candidates) {
    try {
      const sha = (await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `${full}^{commit}`])).trim();
      if (sha) return { sha, ref: full, name: full.replace(/^refs\/(heads|tags)\//, '') };
    } catch {
      // not this one
    }
  }
  return undefined;
}

export async function readFileAt(gitDir: string, sha: string, path: string): Promise<string | undefined> {
  try {
    return await git(['--git-dir', gitDir, 'show', `${sha}:${path}`]);
  } catch {
    return undefined;
  }
}

/** Paths of the workflow files at a commit. */
export async function listWorkflowPaths(gitDir: string, sha: string): Promise<string[]> {
  try {
    const out = await git(['--git-dir', gitDir, 'ls-tree', '--name-only', `${sha}:.github/workflows`]);
    return out
      .split('\n')
      .filter((n) => /\.ya?ml$/.test(n))
      .map((n) => `.github/workflows/${n}`);
  } catch {
    return [];
  }
}

export async function defaultBranch(gitDir: string): Promise<string> {
  const out = await git(['--git-dir', gitDir, 'symbolic-ref', 'HEAD']);
  return out.trim().replace(/^refs\/heads\//, '');
}

export interface CommitInfo {
  sha: string;
  tree: string;
  message: string;
  timestamp: string;
  author: { name: string; email: string };
  committer: { name: string; email: string };
}

export async function commitInfo(gitDir: string, sha: string): Promise<CommitInfo> {
  const sep = '\u001f';
  const out = await git(['--git-dir', gitDir, 'show', '-s', `--format=%H${sep}%T${sep}%an${sep}%ae${sep}%cn${sep}%ce${sep}%cI${sep}%B`, sha]);
  const [h, t, an, ae, cn, ce, date, ...msg] = out.split(sep);
  return {
    sha: h!,
    tree: t!,
    author: { name: an!, email: ae! },
    committer: { name: cn!, email: ce! },
    timestamp: date!,
    message: msg.join(sep).replace(/\n+$/, ''),
  };
}
