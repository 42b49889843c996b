// A local branch standing in for a pull request (`baton run <workflow> --local --input
// pr=<branch>`): the run starts from the branch's head, as a run bound to a pull request
// starts from the PR's head on GitHub, and its `pr` context is what GitHub would show for
// that branch opened against its base: a title from the commits, their messages as body.
import { keptLength, MAX_THREAD_TEXT_CHARS } from '../../app/too-long.ts';
import { sanitizeUntrusted } from '../../engine/untrusted.ts';
import type { Json } from '../../engine/index.ts';
import { failed, git, revParse } from './git.ts';

/** A branch that cannot stand in for a pull request: the message names it and says what to do. */
export class PullRequestBranchError extends Error {
  override name = 'PullRequestBranchError';
}

export interface LocalPullRequest {
  /** The run's `pr` context: `number` 0 (a branch has none), `title`, `body`, `url` '', `head`, `base`. */
  context: Json;
  head: { branch: string; sha: string };
  base: string;
  /** Where the pull request's changes start (merge base of head and base): a reviewer reads the diff from here. */
  mergeBase: string;
}

/** Most commits whose messages make up the body (a long-lived branch would say little more). */
const MAX_COMMITS = 50;

/**
 * The branch a pull request would merge into when none is named: the remote's default branch
 * (`origin/HEAD`, set by `git clone`), else `main` or `master`, whichever exists here.
 */
export function defaultBaseBranch(repo: string): string | null {
  const remoteHead = git(repo, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], { allowFail: true });
  if (!failed(remoteHead) && remoteHead.startsWith('origin/')) return remoteHead.slice('origin/'.length);
  for (const name of ['main', 'master']) if (branchSha(repo, name)) return name;
  return null;
}

/** A local branch's head, else its `origin/` remote-tracking branch's (a base you never checked out). */
function branchSha(repo: string, name: string): string | null {
  return revParse(repo, `refs/heads/${name}`) ?? revParse(repo, `refs/remotes/origin/${name}`);
}

/** `git check-ref-format --branch`: a name git would accept for a branch (no `..`, no leading `-`, no control characters). */
function validBranchName(repo: string, name: string): boolean {
  return name !== '' && !name.startsWith('-') && !failed(git(repo, ['check-ref-format', '--branch', name], { allowFail: true }));
}

export function localPullRequest(repo: string, branch: string, base?: string): LocalPullRequest {
  const shown = JSON.stringify(branch);
  if (!validBranchName(repo, branch)) throw new PullRequestBranchError(`pr=${shown} is not a branch name`);
  const headSha = revParse(repo, `refs/heads/${branch}`);
  if (!headSha) {
    throw new PullRequestBranchError(`no local branch ${shown} (pr=<branch> names a branch of this repository; \`git branch --list\` shows them, \`git fetch origin ${branch}:${branch}\` brings one from the remote)`);
  }
  const baseName = base ?? defaultBaseBranch(repo);
  if (baseName === null) throw new PullRequestBranchError(`cannot tell which branch ${shown} would merge into (no origin/HEAD, no main or master): name it with --base <branch>`);
  if (!validBranchName(repo, baseName)) throw new PullRequestBranchError(`--base ${JSON.stringify(baseName)} is not a branch name`);
  const baseSha = branchSha(repo, baseName);
  if (!baseSha) throw new PullRequestBranchError(`no branch ${JSON.stringify(baseName)} to merge ${shown} into${base === undefined ? ' (the default branch)' : ''}: name the base with --base <branch>`);
  if (baseName === branch) throw new PullRequestBranchError(`${shown} is the base branch itself: a pull request merges another branch into it (--base names the base)`);
  const mergeBase = git(repo, ['merge-base', baseSha, headSha], { allowFail: true });
  if (failed(mergeBase) || mergeBase === '') throw new PullRequestBranchError(`${shown} and ${JSON.stringify(baseName)} have no commit in common: there is no pull request between them`);
  if (mergeBase === headSha) throw new PullRequestBranchError(`${shown} has no commits that ${JSON.stringify(baseName)} lacks: there is nothing to review`);

  const commits = commitMessages(repo, mergeBase, headSha);
  // GitHub's default title: the subject of a lone commit, else the branch name.
  const title = sanitizeUntrusted(commits.length === 1 ? commits[0]!.subject : branch);
  let body = sanitizeUntrusted(commits.map((c) => (c.body ? `${c.subject}\n\n${c.body}` : c.subject)).join('\n\n'));
  // As for an automatic run on GitHub: text longer than a run record holds is cut, and says so.
  const cut = '\n\n[baton: the rest of the commit messages was cut: they are longer than a run record holds]';
  let kept = body.length;
  while (keptLength(title, body) > MAX_THREAD_TEXT_CHARS && kept > 0) {
    kept = Math.floor(kept * 0.9);
    body = body.slice(0, kept) + cut;
  }
  return {
    context: { number: 0, title, body, url: '', head: branch, base: baseName },
    head: { branch, sha: headSha },
    base: baseName,
    mergeBase,
  };
}

/** The commits of `from..to`, oldest first (at most MAX_COMMITS, the newest kept). */
function commitMessages(repo: string, from: string, to: string): { subject: string; body: string }[] {
  const out = git(repo, ['log', '--no-color', `--max-count=${MAX_COMMITS}`, '--format=%s%x00%b%x1e', `${from}..${to}`]);
  return out
    .split('\x1e')
    .map((c) => c.replace(/^\n/, ''))
    .filter((c) => c !== '')
    .map((c) => {
      const [subject = '', body = ''] = c.split('\0');
      return { subject: subject.trim(), body: body.trim() };
    })
    .reverse();
}
