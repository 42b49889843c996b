/**
 * Pull requests from forks, as far as baton meets them: someone without access to the
 * repository forks it, pushes a branch and opens a pull request against it. The fork itself is
 * not emulated (no repository, no REST routes of its own): its branch is a commit this
 * repository already has — GitHub keeps a fork network's objects together, and a fork can push
 * the very commit of any public branch — under a name of the contributor's choosing.
 *
 * What follows is GitHub's: `pull_request.opened` with `head.repo` the fork; with Actions
 * installed, `pull_request` workflows run in this repository on the test merge commit, their
 * `head_repository` the fork, their GITHUB_TOKEN read-only and without the repository's secrets
 * (docs "Automatic token authentication": "read-only permissions in pull requests from forked
 * repositories"; docs "Using secrets": secrets "are not passed to the runner when a workflow is
 * triggered from a forked repository"), and their check suite's `head_branch` as the reading
 * `forkSuiteHeadBranch` says (readings.ts). GitHub keeps the head of every pull request, a
 * fork's too, at `refs/pull/<n>/head` of the base repository (docs "Checking out pull requests
 * locally": https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/reviewing-changes-in-pull-requests/checking-out-pull-requests-locally),
 * so the base repository can name the fork's commit. Whether a ref of its own may be made at a
 * commit only a fork has is not settled (readings.ts `forkShaRef`): `refuseForkOnlyCommit`.
 *
 * `pull_request_target` workflows (actions/triggers.ts) run for the same activity, in the base
 * repository's context: its workflow files, its token and its secrets.
 */
import type { Emulator } from './emulator.ts';
import type { GitRepo } from './git.ts';
import { unprocessable, type RouteContext } from './http/router.ts';
import { refuseWorkflowRule } from './routes/workflow-files.ts';
import { openPull, pullJson } from './routes/pulls.ts';
import { now } from './store.ts';

export interface ForkPullRequest {
  /** The repository the pull request is opened against. */
  owner: string;
  repo: string;
  /** The fork's owner: the contributor, who opens the pull request. */
  fork: string;
  /** The fork's branch, named as the contributor likes (`baton/<run>` too). */
  branch: string;
  /** Its head: a commit this repository has. */
  sha: string;
  title: string;
  /** The base branch; the default branch when absent. */
  base?: string;
}

/** Opens a pull request from `fork`'s branch; returns its number. */
export async function openForkPullRequest(emulator: Emulator, o: ForkPullRequest): Promise<number> {
  const repo = emulator.repo(o.owner, o.repo);
  const git = emulator.git(o.owner, o.repo);
  if (o.fork.toLowerCase() === repo.owner.toLowerCase()) throw new Error('a fork belongs to another account than the repository');
  if ((await git.readCommit(o.sha).catch(() => null)) === null) throw new Error(`${o.sha} is no commit of ${repo.fullName}: a fork's branch here is a commit the repository has`);
  const base = o.base ?? repo.defaultBranch;
  const baseSha = await git.resolveRef(`refs/heads/${base}`);
  if (baseSha === null) throw new Error(`no branch ${base} in ${repo.fullName}`);
  emulator.store.user(o.fork);
  const json = await openPull(emulator, repo, {
    title: o.title,
    body: null,
    user: o.fork,
    head: o.branch,
    headRepo: `${o.fork}/${repo.name}`,
    base,
    headSha: o.sha,
    baseSha,
    draft: false,
    maintainerCanModify: false,
  });
  // GitHub keeps the pull request's head in the base repository.
  await git.updateRef(`refs/pull/${json.number as number}/head`, o.sha);
  return json.number as number;
}

/**
 * A commit of the fork: `files` over `parent` (the base branch's head when absent), in the
 * fork network's shared object store and on no branch of the repository — what a stranger
 * pushes to their fork before opening a pull request with it.
 */
export async function forkCommit(emulator: Emulator, o: { owner: string; repo: string; fork: string; files: Record<string, string>; parent?: string }): Promise<string> {
  const git = emulator.git(o.owner, o.repo);
  const parent = o.parent ?? (await git.resolveRef(`refs/heads/${emulator.repo(o.owner, o.repo).defaultBranch}`))!;
  const changes = [];
  for (const [path, content] of Object.entries(o.files)) changes.push({ path, mode: '100644', type: 'blob', sha: await git.hashBlob(Buffer.from(content)) });
  const tree = await git.writeTree((await git.readCommit(parent)).tree, changes);
  return git.commitTree(tree, [parent], `Change by ${o.fork}`, { name: o.fork, email: `${o.fork}@users.noreply.github.com` });
}

/**
 * Whether `sha` is a commit only forks have: a pull request's refs have it and no other ref of
 * the repository does (a commit made through the API and on no ref yet is the repository's own).
 * The test merge commit GitHub keeps at `refs/pull/<n>/merge` (written by the Actions plugin
 * when a pull request event is looked at, at a moment of its own) holds the fork's commit too.
 */
export async function onlyInForks(git: GitRepo, sha: string): Promise<boolean> {
  if ((await git.type(sha)) !== 'commit') return false;
  const refs = await git.refsContaining(sha);
  const pullRef = (ref: string) => /^refs\/pull\/\d+\/(head|merge)$/.test(ref);
  return refs.some(pullRef) && refs.every(pullRef);
}

/**
 * At `POST git/refs`: GitHub's answer, under the reading `forkShaRef`, to a new ref at a commit
 * only a fork has (`accepted` lets it through to the usual rules).
 */
export async function refuseForkOnlyCommit(ctx: RouteContext, git: GitRepo, sha: string): Promise<void> {
  const reading = ctx.emulator.readings.forkShaRef;
  if (reading === 'accepted' || !(await onlyInForks(git, sha))) return;
  if (reading === 'does-not-exist') throw unprocessable('Reference does not exist');
  refuseWorkflowRule(ctx);
}

/**
 * The contributor pushes `sha` to their fork's branch of pull request `number`: GitHub moves
 * the pull request's head (and `refs/pull/<n>/head` here) and sends `pull_request.synchronize`
 * to the base repository, the pusher its sender (docs "Webhook events and payloads",
 * pull_request: "synchronize — a pull request's head branch was updated").
 */
export async function pushToForkPullRequest(emulator: Emulator, o: { owner: string; repo: string; fork: string; number: number; sha: string }): Promise<void> {
  const repo = emulator.repo(o.owner, o.repo);
  const issue = repo.issues.get(o.number);
  const pull = issue?.pull;
  if (!issue || !pull || pull.headRepo.toLowerCase() !== `${o.fork}/${repo.name}`.toLowerCase()) throw new Error(`#${o.number} is no pull request from ${o.fork}'s fork`);
  const before = pull.headSha;
  pull.headSha = o.sha;
  issue.updatedAt = now();
  await emulator.git(o.owner, o.repo).updateRef(`refs/pull/${o.number}/head`, o.sha);
  emulator.webhooks.emit('pull_request', { action: 'synchronize', number: o.number, before, after: o.sha, pull_request: await pullJson(emulator, repo, issue) }, { owner: repo.owner, repo: repo.name, sender: o.fork });
}
