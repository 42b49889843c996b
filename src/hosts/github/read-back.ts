// Reading a step's deliverable back from GitHub before the engine records the step done
// (engine/deliverable.ts): what GitHub has now, never what an earlier answer said. Each check
// names what it did not find, in words for the record; a read GitHub could not answer at all
// (rate limits, its own failures) throws, and the event is tried again like any other.
import type { Deliverable, ReadBack, RunEvent } from '../../engine/index.ts';
import { statusOf, type RepoContext } from './client.ts';
import { readRef } from './git-refs.ts';
import type { CommitCache } from './memory.ts';
import { findOwnReview } from './review.ts';
import { markerComment } from '../../record/inert.ts';

export interface Found {
  missing: string[];
  found?: string;
}

/** The answer to a read-back command. */
export function deliverableRead(cmd: ReadBack, at: number, { missing, found }: Found): RunEvent {
  return { type: 'deliverable.read', key: `${cmd.key}/read`, at, step: cmd.step, opening: cmd.opening, seq: cmd.seq, missing, ...(found ? { found } : {}) };
}

/** Reads back a pull request, a review or labels; a commit is read by readCommit (the host first brings the branch there). */
export async function readDeliverable(gh: RepoContext, x: Exclude<Deliverable, { kind: 'commit' }>): Promise<Found> {
  switch (x.kind) {
    case 'pull-request':
      return readPull(gh, x);
    case 'review':
      return readReview(gh, x);
    case 'labels':
      return readLabels(gh, x);
    case 'questions':
      return readQuestions(gh, x);
  }
}

async function readQuestions(gh: RepoContext, x: Extract<Deliverable, { kind: 'questions' }>): Promise<Found> {
  const tail = markerComment(`baton:questions ${x.marker}`);
  const comments = await gh.octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: gh.owner, repo: gh.repo, issue_number: x.thread.number, per_page: 100 });
  // Only baton's own comment ending in the marker: anyone can quote a marker.
  const ours = comments.find((c) => c.user?.login.toLowerCase() === gh.botLogin.toLowerCase() && (c.body ?? '').trimEnd().endsWith(tail));
  return ours ? { missing: [], found: `the questions on #${x.thread.number}` } : { missing: [`GitHub has no comment of baton's with the questions on #${x.thread.number}`] };
}

async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

async function readPull(gh: RepoContext, x: Extract<Deliverable, { kind: 'pull-request' }>): Promise<Found> {
  const o = { owner: gh.owner, repo: gh.repo };
  const pull = (await orNull(gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: x.number })))?.data;
  if (!pull) return { missing: [`GitHub has no pull request #${x.number}`] };
  const missing: string[] = [];
  if (pull.state !== 'open' && !pull.merged) missing.push(`#${x.number} is closed`);
  if (pull.head.ref !== x.branch) missing.push(`#${x.number}'s head branch is \`${pull.head.ref}\`, not \`${x.branch}\``);
  else if (pull.head.sha !== x.head) missing.push(`#${x.number}'s head is ${pull.head.sha.slice(0, 7)}, not the run's head ${x.head.slice(0, 7)}`);
  return { missing, found: `#${x.number} at ${pull.head.sha.slice(0, 7)}` };
}

async function readReview(gh: RepoContext, x: Extract<Deliverable, { kind: 'review' }>): Promise<Found> {
  // baton's review carrying the command's marker (its id, when the post answered with one, must match).
  const review = await findOwnReview(gh, x.prNumber, x.marker);
  if (!review || (x.reviewId !== null && Number(review.id) !== x.reviewId)) return { missing: [`GitHub has no review of baton's on #${x.prNumber}${x.reviewId !== null ? ` with id ${x.reviewId}` : ''}`] };
  return { missing: [], found: `review ${review.id} on #${x.prNumber}` };
}

async function readLabels(gh: RepoContext, x: Extract<Deliverable, { kind: 'labels' }>): Promise<Found> {
  const on = await gh.octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/labels', { owner: gh.owner, repo: gh.repo, issue_number: x.thread.number, per_page: 100 });
  const have = new Set(on.map((l) => l.name.toLowerCase()));
  const absent = x.labels.filter((l) => !have.has(l.toLowerCase()));
  return { missing: absent.length ? [`#${x.thread.number} does not have ${absent.map((l) => `\`${l}\``).join(', ')}`] : [], found: `#${x.thread.number} has ${x.labels.map((l) => `\`${l}\``).join(', ')}` };
}

/**
 * A writing step's commit: GitHub has the run's head, `ref` (the run branch, or the held head's
 * ref while an approval is to come) leads to it or lags behind it — before its pull request
 * exists, a step's commit is the run's head without moving the branch (host.ts `mergeLater`: the
 * event's claim keeps it, and the branch moves there when the run next pauses) — and the head's
 * files differ from where the step started.
 */
export async function readCommit(gh: RepoContext, commits: CommitCache, x: Extract<Deliverable, { kind: 'commit' }>, ref: string, keptBy: string | null): Promise<Found> {
  // GitHub accepted a ref of baton's at the head during this very event (the branch's move, or the
  // claim that keeps the commit): that answer is GitHub's own state, and reading it again costs a
  // request per agent step (docs/performance.md). Commits never change, so the cache's trees are exact.
  if (keptBy !== null) return trees(gh, commits, x, keptBy, false);
  const at = await readRef(gh, ref);
  if (at === null) return { missing: [`\`${ref}\` does not exist`] };
  if (at !== x.head) {
    // The branch must not have moved elsewhere: it holds the head, or the head holds it.
    const cmp = await orNull(gh.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { owner: gh.owner, repo: gh.repo, basehead: `${at}...${x.head}` }));
    if (!cmp || cmp.data.status === 'diverged') return { missing: [`\`${ref}\` is at ${at.slice(0, 7)}, which neither holds nor leads to the step's commit ${x.head.slice(0, 7)}`] };
  }
  return trees(gh, commits, x, `\`${ref}\``, true);
}

/** The head's files differ from where the step started: the diff the step reports is there. */
async function trees(gh: RepoContext, commits: CommitCache, x: Extract<Deliverable, { kind: 'commit' }>, where: string, fresh: boolean): Promise<Found> {
  const [head, from] = await Promise.all([treeOf(gh, commits, x.head, fresh), treeOf(gh, commits, x.from)]);
  if (head === null) return { missing: [`GitHub has no commit ${x.head.slice(0, 7)}`] };
  if (head === from) return { missing: [`commit ${x.head.slice(0, 7)} changes no file from where the step started (${x.from.slice(0, 7)})`] };
  return { missing: [], found: `commit ${x.head.slice(0, 7)}, kept by ${where}` };
}

/** A commit's tree: from the cache of commits this process made or read, else one read (always one for `fresh`: is it on GitHub?). */
async function treeOf(gh: RepoContext, commits: CommitCache, sha: string, fresh = false): Promise<string | null> {
  const known = commits.tree(sha);
  if (known && !fresh) return known;
  const c = (await orNull(gh.octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner: gh.owner, repo: gh.repo, commit_sha: sha })))?.data;
  if (!c) return null;
  commits.remember(sha, c.tree.sha);
  return c.tree.sha;
}
