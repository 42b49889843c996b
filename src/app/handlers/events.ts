// Runs the events of a pull request or an issue start (`on.pull_request`, `on.issues`): each
// valid workflow of the default branch's manifests that subscribes to the event's type, and
// whose filters the event passes, starts one run bound to the thread. Filters are applied
// cheapest first; the changed files are read only when a workflow still in play has `paths`.
import { listsBot } from '../../engine/index.ts';
import { anyPathMatches, matchesFilters } from '../../manifest/filter-patterns.ts';
import { forkReviewRefusals } from '../../manifest/fork-review.ts';
import type { Authors, Workflow } from '../../manifest/types.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { defaultBranchHead, loadManifests, type ManifestSet } from '../../hosts/github/manifests.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { runIdOfPullBody } from '../../hosts/github/run-id.ts';
import { admitsAuthor, type TriggerKind } from '../../engine/index.ts';
import type { Log, RunService } from '../runs.ts';
import { startRun, type Thread } from './start.ts';

/** What a `pull_request` event says of its pull request. */
export interface PullRequestEvent {
  action: string;
  thread: Thread;
  draft: boolean;
  baseRef: string;
  headRef: string;
  headSha: string;
  /** `owner/name` of the head's repository; null when the fork was deleted. */
  headRepo: string | null;
  author: string;
  authorIsBot: boolean;
  sender: string;
  senderIsBot: boolean;
  /** `pull_request.changed_files`: how many files GitHub counts, beyond what its listing shows. */
  changedFiles: number | null;
  key: string;
}

export interface IssueEvent {
  action: string;
  thread: Thread;
  author: string;
  authorIsBot: boolean;
  sender: string;
  senderIsBot: boolean;
  key: string;
}

/** "Responses include a maximum of 3000 files" (REST reference, "List pull requests files"). */
export const MAX_LISTED_FILES = 3000;

export async function onPullRequestEvent(runs: RunService, gh: RepoContext, ev: PullRequestEvent, log: Log): Promise<void> {
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const subscribed = subscribers(set, (w) => (w.on.pullRequest?.types as readonly string[] | undefined)?.includes(ev.action) === true);
  if (!subscribed.length) return;
  const own = ownPull(gh, ev);
  const fork = (ev.headRepo ?? '').toLowerCase() !== `${gh.owner}/${gh.repo}`.toLowerCase();
  const candidates = subscribed.filter(({ workflow: w }) => {
    const on = w.on.pullRequest!;
    if (own && !listsBot(on.authors.bots, gh.botLogin)) return skip(log, w, ev, `${own}, and on.pull_request.authors does not list ${gh.botLogin}`);
    // A draft is work in progress: baton's own filter, off unless the workflow asks.
    if (ev.draft && !on.drafts) return skip(log, w, ev, 'it is a draft (on.pull_request.drafts is false)');
    if (fork) {
      // A fork's code must not run with this repository's token and secrets: only a workflow
      // that asks (`forks: review`) and that the fork rule admits (read sandboxed, write
      // nothing: manifest/fork-review.ts, the validator's rule, held here too) starts, as a fork run.
      if (on.forks !== 'review') return skip(log, w, ev, 'it comes from a fork (on.pull_request.forks is ignore)');
      const refused = forkReviewRefusals(w);
      if (refused.length) return skip(log, w, ev, `it comes from a fork, and ${refused[0]!.message}`);
    }
    if (!matchesFilters(on.branches, ev.baseRef)) return skip(log, w, ev, `its base \`${ev.baseRef}\` is not in on.pull_request.branches`);
    return true;
  });
  if (!candidates.length) return;
  // Deliveries come in any order, and again: an event about a head the pull request has moved
  // past (or a pull request closed since) starts nothing — the newer push's own event starts its run,
  // and a late one must not supersede it with a run on an older commit.
  const now = (await gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: gh.owner, repo: gh.repo, pull_number: ev.thread.number })).data;
  if (now.state !== 'open' || now.head.sha !== ev.headSha) {
    log.info(`pull request #${ev.thread.number} (${ev.action}) started nothing: it is ${now.state !== 'open' ? now.state : `at ${now.head.sha.slice(0, 7)} now, past this event's ${ev.headSha.slice(0, 7)}`}`);
    return;
  }
  const changed = candidates.some(({ workflow: w }) => w.on.pullRequest!.paths.length > 0) ? await changedFiles(gh, ev, log) : [];
  for (const found of candidates) {
    const on = found.workflow.on.pullRequest!;
    if (on.paths.length > 0 && !anyPathMatches(on.paths, changed)) {
      skip(log, found.workflow, ev, `none of the ${changed.length} files it changes is in on.pull_request.paths`);
      continue;
    }
    if (!(await authorAdmitted(gh, found.workflow, 'pull_request', on.authors, ev, log))) continue;
    await startRun(
      runs,
      gh,
      {
        ...found,
        manifestCommit: sha,
        thread: ev.thread,
        actor: ev.sender,
        actorIsBot: ev.senderIsBot,
        inputs: {},
        // One delivery may start several workflows: each is deduped on its own.
        key: `${ev.key}/${found.workflow.name}`,
        // The run branch starts from the pull request's head. A fork's branch is not this
        // repository's: its run is against the branch the pull request merges into, its head is
        // the fork's commit (GitHub keeps it here as refs/pull/<n>/head; workers check it out by
        // sha), and that commit never becomes a ref of this repository — a branch an App makes
        // starts the repository's push CI, with its secrets (engine/start.ts). Nothing is ever
        // written to the fork.
        base: fork ? { branch: ev.baseRef, sha: ev.headSha } : { branch: ev.headRef, sha: ev.headSha },
        trigger: 'pull_request',
        ...(fork && { fork: true as const }),
        // Opened with the workflow's label: the label's delivery may have started it already.
        ...(ev.action === 'opened' && { giveWay: 'any' as const }),
      },
      log,
    );
  }
}

export async function onIssueEvent(runs: RunService, gh: RepoContext, ev: IssueEvent, log: Log): Promise<void> {
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const subscribed = subscribers(set, (w) => (w.on.issues?.types as readonly string[] | undefined)?.includes(ev.action) === true);
  const own = isBaton(gh, ev.sender) || isBaton(gh, ev.author) ? `baton (${gh.botLogin}) caused it` : undefined;
  for (const found of subscribed) {
    const on = found.workflow.on.issues!;
    if (own && !listsBot(on.authors.bots, gh.botLogin)) {
      skip(log, found.workflow, ev, `${own}, and on.issues.authors does not list ${gh.botLogin}`);
      continue;
    }
    if (!(await authorAdmitted(gh, found.workflow, 'issues', on.authors, ev, log))) continue;
    await startRun(
      runs,
      gh,
      { ...found, manifestCommit: sha, thread: ev.thread, actor: ev.sender, actorIsBot: ev.senderIsBot, inputs: {}, key: `${ev.key}/${found.workflow.name}`, trigger: 'issues', ...(ev.action === 'opened' && { giveWay: 'any' as const }) },
      log,
    );
  }
}

function subscribers(set: ManifestSet, listens: (w: Workflow) => boolean): { workflow: Workflow; hash: string }[] {
  return set.files.flatMap((f) => (f.loaded && listens(f.loaded.workflow) ? [{ workflow: f.loaded.workflow, hash: f.loaded.hash }] : []));
}

function skip(log: Log, w: Workflow, ev: { action: string; thread: Thread }, why: string): false {
  log.info(`\`${w.name}\` not started for ${ev.thread.isPull ? 'pull request' : 'issue'} #${ev.thread.number} (${ev.action}): ${why}`);
  return false;
}

const isBaton = (gh: RepoContext, login: string): boolean => login.toLowerCase() === gh.botLogin.toLowerCase();

/** Why a pull request is baton's own (its login acted or wrote it, or it is a run's PR), or undefined. */
function ownPull(gh: RepoContext, ev: PullRequestEvent): string | undefined {
  if (isBaton(gh, ev.sender) || isBaton(gh, ev.author)) return `baton (${gh.botLogin}) caused it`;
  // A run's pull request, whoever's token opened it (Actions-only mode opens them as github-actions[bot]).
  if (ev.headRef.startsWith('baton/') || runIdOfPullBody(ev.thread.body)) return 'it is a baton run\'s pull request';
  return undefined;
}

/**
 * The run's actor is the event's `sender`: whoever acted (GitHub's `github.actor`) — on `opened`
 * the author, on `synchronize` the pusher, on `edited` or `ready_for_review` whoever edited or
 * marked it. But a run reads the thread's text (and a pull request's code), which its author
 * wrote: when the author is someone else, `authors` must admit them too, or a maintainer's push to
 * a stranger's pull request would start, on the stranger's words, a run no one admitted.
 * startRun checks the sender; this checks the author (one permission read, only when they differ).
 */
async function authorAdmitted(gh: RepoContext, w: Workflow, trigger: TriggerKind, authors: Authors, ev: { author: string; authorIsBot: boolean; sender: string; action: string; thread: Thread }, log: Log): Promise<boolean> {
  if (ev.author.toLowerCase() === ev.sender.toLowerCase()) return true;
  if (authors.any || listsBot(authors.bots, ev.author)) return true;
  const permission = ev.authorIsBot ? 'none' : await permissionOf(gh, ev.author);
  if (admitsAuthor(w.on, trigger, ev.author, permission)) return true;
  return skip(log, w, ev, `its author ${ev.author} is not admitted by on.${trigger}.authors (${ev.sender} acted on it)`);
}

/**
 * The files the pull request changes (renamed files by both names). GitHub lists at most 3000:
 * past that, the rest are not seen, as GitHub's own `paths` filter sees only the first 300 of
 * a diff ("If there are files changed that aren't matched in the first 300 files returned by
 * the filter, the workflow will not run"): a workflow whose paths are all past the listing
 * does not start, and the log says why.
 */
async function changedFiles(gh: RepoContext, ev: PullRequestEvent, log: Log): Promise<string[]> {
  const files = await gh.octokit.paginate('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { owner: gh.owner, repo: gh.repo, pull_number: ev.thread.number, per_page: 100 });
  if (ev.changedFiles !== null && ev.changedFiles > files.length) {
    log.info(`pull request #${ev.thread.number} changes ${ev.changedFiles} files; GitHub lists the first ${files.length} (at most ${MAX_LISTED_FILES}), and on.pull_request.paths is matched against those only`);
  }
  return files.flatMap((f: { filename: string; previous_filename?: string }) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
}
