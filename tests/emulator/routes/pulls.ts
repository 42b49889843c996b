/** Pull requests (they are issues with a head and a base), reviews and review comments. */
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, unprocessable, validationFailed, type RouteContext } from '../http/router.ts';
import type { Issue, Repo, Review, ReviewComment } from '../store.ts';
import { now } from '../store.ts';
import { emitIssueEvent } from './issues.ts';
import { actor, body, gitOf, paginate, repoOf } from './util.ts';

/** The full pull request, with counts and mergeability computed from git. */
export async function pullJson(emulator: Emulator, repo: Repo, issue: Issue) {
  const pull = issue.pull!;
  const git = emulator.git(repo.owner, repo.name);
  const mergeBase = await git.mergeBase(pull.baseSha, pull.headSha);
  let counts = { commits: 0, additions: 0, deletions: 0, changedFiles: 0, mergeable: null as boolean | null };
  if (mergeBase !== null) {
    const files = await git.diff(mergeBase, pull.headSha);
    const mergeable = pull.merged ? null : 'tree' in (await git.mergeTree(pull.baseSha, pull.headSha));
    counts = {
      commits: await git.countCommits(mergeBase, pull.headSha),
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      changedFiles: files.length,
      mergeable,
    };
  }
  return emulator.shapes.pull(repo, issue, counts);
}

/**
 * A job's GITHUB_TOKEN (it acts as github-actions[bot]) may open or approve pull requests
 * only when the repository allows it (off by default): GitHub answers 403 "GitHub Actions
 * is not permitted to create or approve pull requests." (changelog 2022-05-03 "Prevent
 * GitHub Actions from creating and approving pull requests"; danielroe/uppt issue #11;
 * peter-evans/create-pull-request issue #3979).
 */
function refuseActionsWithoutSetting(ctx: RouteContext, repo: Repo): void {
  if (actor(ctx) === ACTIONS_BOT && !repo.actionsCanCreatePullRequests) throw new HttpError(403, 'GitHub Actions is not permitted to create or approve pull requests.');
}
const ACTIONS_BOT = 'github-actions[bot]';

/** The most files `GET /pulls/{n}/files` lists (REST reference, "List pull requests files"). */
export const MAX_PULL_FILES = 3000;

function pullOf(ctx: RouteContext, repo: Repo): Issue {
  const issue = repo.issues.get(Number(ctx.params.pull_number));
  if (issue?.pull === undefined) throw notFound();
  return issue;
}

/** `owner:branch` or `branch` → branch (forks are not emulated: every head is in the repo). */
function branchName(ref: string): string {
  const colon = ref.indexOf(':');
  return colon === -1 ? ref : ref.slice(colon + 1);
}

/**
 * Draft pull requests: public repositories on every plan; private ones only on Team and
 * Enterprise Cloud (REST docs, "Create a pull request": "available in public repositories
 * with GitHub Free and GitHub Free for organizations, GitHub Pro, and legacy per-repository
 * billing plans, and in public and private repositories with GitHub Team and GitHub
 * Enterprise Cloud"). Elsewhere: 422 "Draft pull requests are not supported in this
 * repository." (SWE-agent/SWE-agent#179, mislav/hub#2099, OpenHands/OpenHands#6560).
 */
function draftsAllowed(repo: Repo): boolean {
  return repo.visibility === 'public' || repo.plan === 'team' || repo.plan === 'enterprise';
}

export function registerPullRoutes(emulator: Emulator): void {
  const { router, store, shapes, webhooks } = emulator;
  const read = { permission: ['pull_requests', 'read'] as ['pull_requests', 'read'] };
  const write = { permission: ['pull_requests', 'write'] as ['pull_requests', 'write'] };

  router.add(
    'GET',
    '/repos/{owner}/{repo}/pulls',
    (ctx) => {
      const repo = repoOf(ctx);
      const state = ctx.query.get('state') ?? 'open';
      const head = ctx.query.get('head');
      const base = ctx.query.get('base');
      let pulls = [...repo.issues.values()].filter(
        (i) =>
          i.pull !== undefined &&
          (state === 'all' || i.state === state) &&
          // `head` must be `owner:branch`; GitHub ignores the filter's owner-less form.
          (head === null || !head.includes(':') || (head.split(':')[0]!.toLowerCase() === repo.owner.toLowerCase() && i.pull.head === branchName(head))) &&
          (base === null || i.pull.base === base),
      );
      const sort = ctx.query.get('sort') ?? 'created';
      pulls = pulls.sort((a, b) => (sort === 'updated' ? a.updatedAt.localeCompare(b.updatedAt) : 0) || a.number - b.number);
      if ((ctx.query.get('direction') ?? 'desc') === 'desc') pulls.reverse();
      return paginate(ctx, pulls.map((i) => shapes.pullSimple(repo, i)));
    },
    read,
  );

  router.add(
    'POST',
    '/repos/{owner}/{repo}/pulls',
    async (ctx) => {
      const repo = repoOf(ctx);
      const git = gitOf(ctx, repo);
      const input = body<{ title?: string; head: string; base: string; body?: string; draft?: boolean; maintainer_can_modify?: boolean; issue?: number }>(ctx);
      refuseActionsWithoutSetting(ctx, repo);
      const head = branchName(input.head);
      const headSha = await git.resolveRef(`refs/heads/${head}`);
      const baseSha = await git.resolveRef(`refs/heads/${input.base}`);
      const errors = [];
      if (headSha === null) errors.push({ resource: 'PullRequest', field: 'head', code: 'invalid' as const });
      if (baseSha === null) errors.push({ resource: 'PullRequest', field: 'base', code: 'invalid' as const });
      if (errors.length > 0) throw validationFailed(errors);
      if (input.title === undefined && input.issue === undefined) throw validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
      const duplicate = [...repo.issues.values()].find((i) => i.pull?.head === head && i.pull.base === input.base && i.state === 'open');
      if (duplicate !== undefined) {
        throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner}:${head}.` }]);
      }
      if ((await git.countCommits(baseSha!, headSha!)) === 0) {
        throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${input.base} and ${head}` }]);
      }
      if (input.draft === true && !draftsAllowed(repo)) throw unprocessable('Draft pull requests are not supported in this repository.');
      const json = await openPull(emulator, repo, {
        title: input.title ?? `#${input.issue}`,
        body: input.body ?? null,
        user: actor(ctx),
        head,
        headRepo: repo.fullName,
        base: input.base,
        headSha: headSha!,
        baseSha: baseSha!,
        draft: input.draft ?? false,
        maintainerCanModify: input.maintainer_can_modify ?? true,
      });
      return { status: 201, body: json, headers: { location: json.url } };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', async (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: await pullJson(emulator, repo, pullOf(ctx, repo)) };
  }, read);

  router.add(
    'PATCH',
    '/repos/{owner}/{repo}/pulls/{pull_number}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const issue = pullOf(ctx, repo);
      const pull = issue.pull!;
      const input = body<{ title?: string; body?: string; state?: 'open' | 'closed'; base?: string; maintainer_can_modify?: boolean }>(ctx);
      const sender = actor(ctx);
      const changes: Record<string, { from: string } | { ref: { from: string }; sha: { from: string } }> = {};
      if (input.title !== undefined && input.title !== issue.title) {
        changes.title = { from: issue.title };
        issue.title = input.title;
      }
      if (input.body !== undefined && input.body !== issue.body) {
        changes.body = { from: issue.body ?? '' };
        issue.body = input.body;
      }
      if (input.base !== undefined && input.base !== pull.base) {
        const baseSha = await gitOf(ctx, repo).resolveRef(`refs/heads/${input.base}`);
        if (baseSha === null) throw validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
        changes.base = { ref: { from: pull.base }, sha: { from: pull.baseSha } };
        pull.base = input.base;
        pull.baseSha = baseSha;
      }
      if (input.maintainer_can_modify !== undefined) pull.maintainerCanModify = input.maintainer_can_modify;
      issue.updatedAt = now();
      if (Object.keys(changes).length > 0) await emitIssueEvent(emulator, repo, issue, 'edited', { changes }, sender);
      if (input.state !== undefined && input.state !== issue.state) {
        if (pull.merged) throw validationFailed([{ resource: 'PullRequest', field: 'state', code: 'custom', message: 'Cannot reopen a merged pull request' }]);
        issue.state = input.state;
        issue.closedAt = input.state === 'closed' ? now() : null;
        await emitIssueEvent(emulator, repo, issue, input.state === 'closed' ? 'closed' : 'reopened', {}, sender);
      }
      return { status: 200, body: await pullJson(emulator, repo, issue) };
    },
    write,
  );

  /**
   * The files a pull request changes (three-dot: from the merge base to the head), paginated.
   * "Responses include a maximum of 3000 files. The paginated response returns 30 files per
   * page by default." (REST reference, "List pull requests files"): past 3000, nothing more is
   * listed, whatever the page.
   */
  router.add('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/files', async (ctx) => {
    const repo = repoOf(ctx);
    const pull = pullOf(ctx, repo).pull!;
    const git = gitOf(ctx, repo);
    const mergeBase = await git.mergeBase(pull.baseSha, pull.headSha);
    const files = mergeBase === null ? [] : await git.diff(mergeBase, pull.headSha);
    const shown = files.slice(0, MAX_PULL_FILES).map((f) => ({
      sha: f.sha,
      filename: f.path,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `${shapes.repoHtml(repo)}/blob/${pull.headSha}/${f.path}`,
      raw_url: `${shapes.repoHtml(repo)}/raw/${pull.headSha}/${f.path}`,
      contents_url: `${emulator.apiUrl}/repos/${repo.owner}/${repo.name}/contents/${f.path}?ref=${pull.headSha}`,
    }));
    return paginate(ctx, shown);
  }, read);

  router.add('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', (ctx) => {
    const repo = repoOf(ctx);
    const issue = pullOf(ctx, repo);
    return paginate(ctx, issue.pull!.reviews.map((r) => shapes.review(repo, issue, r)));
  }, read);

  router.add(
    'POST',
    '/repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    async (ctx) => {
      const repo = repoOf(ctx);
      const issue = pullOf(ctx, repo);
      const pull = issue.pull!;
      const input = body<{
        commit_id?: string;
        body?: string;
        event?: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
        comments?: { path: string; position?: number; body: string; line?: number; side?: string; start_line?: number; start_side?: string }[];
      }>(ctx);
      const user = actor(ctx);
      if (input.event === 'APPROVE') refuseActionsWithoutSetting(ctx, repo);
      // REST docs, "Create a review for a pull request": body is "Required when using
      // REQUEST_CHANGES or COMMENT for the event parameter" (inline comments do not replace it).
      if ((input.event === 'REQUEST_CHANGES' || input.event === 'COMMENT') && (input.body ?? '').trim() === '') {
        throw new HttpError(422, 'Unprocessable Entity', { errors: ['Body is required'] });
      }
      // A PR's author (a user or an App's bot) can neither approve nor request changes on it:
      // 422 "Can not approve your own pull request" (hubtty/hubtty#33,
      // juliangruber/approve-pull-request-action#79).
      if ((input.event === 'APPROVE' || input.event === 'REQUEST_CHANGES') && user.toLowerCase() === issue.user.toLowerCase()) {
        const verb = input.event === 'APPROVE' ? 'approve' : 'request changes on';
        // The reviews endpoint answers with plain strings in errors[], unlike most.
        throw new HttpError(422, 'Unprocessable Entity', { errors: [`Can not ${verb} your own pull request`] });
      }
      // Without commit_id the review is on the pull request's latest commit, and its lines are
      // resolved there (REST "Create a review for a pull request": "Defaults to the most recent
      // commit in the pull request when you do not specify a value"); with one, on that commit,
      // which must be one of the pull request's: else 422 "The commitOID is not part of the pull
      // request" (reviewdog/reviewdog#434, google-github-actions/run-gemini-cli#352), in
      // errors[] as plain strings like this endpoint's other refusals.
      if (input.commit_id !== undefined && !(await partOfPull(emulator, repo, pull, input.commit_id))) {
        throw new HttpError(422, 'Unprocessable Entity', { errors: ['The commitOID is not part of the pull request'] });
      }
      await refuseLinesOutsideTheDiff(emulator, repo, pull, input.commit_id ?? pull.headSha, input.comments ?? []);
      const state: Review['state'] =
        input.event === 'APPROVE' ? 'APPROVED' : input.event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : input.event === 'COMMENT' ? 'COMMENTED' : 'PENDING';
      const commitId = input.commit_id ?? pull.headSha;
      const review: Review = { id: store.nextId(), user, body: input.body ?? '', state, commitId, submittedAt: now(), comments: [] };
      for (const c of input.comments ?? []) {
        const comment: ReviewComment = {
          id: store.nextId(),
          reviewId: review.id,
          user,
          path: c.path,
          line: c.line ?? c.position ?? null,
          startLine: c.start_line ?? null,
          side: c.side === 'LEFT' ? 'LEFT' : 'RIGHT',
          body: c.body,
          commitId,
          createdAt: review.submittedAt,
        };
        review.comments.push(comment);
      }
      pull.reviews.push(review);
      if (state !== 'PENDING') {
        const reviewJson = shapes.review(repo, issue, review);
        webhooks.emit(
          'pull_request_review',
          { action: 'submitted', review: { ...reviewJson, state: state.toLowerCase() }, pull_request: shapes.pullSimple(repo, issue) },
          { owner: repo.owner, repo: repo.name, sender: user },
        );
      }
      return { status: 200, body: shapes.review(repo, issue, review) };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/comments', async (ctx) => {
    const repo = repoOf(ctx);
    const issue = pullOf(ctx, repo);
    const comments = issue.pull!.reviews.filter((r) => r.state !== 'PENDING').flatMap((r) => r.comments);
    const shown = [];
    for (const c of comments) shown.push(shapes.reviewComment(repo, issue, c, await placedNow(emulator, repo, issue.pull!, c)));
    return paginate(ctx, shown);
  }, read);
}

/** Whether `sha` is one of the pull request's commits: its head's, not its base's. */
async function partOfPull(emulator: Emulator, repo: Repo, pull: NonNullable<Issue['pull']>, sha: string): Promise<boolean> {
  const git = emulator.git(repo.owner, repo.name);
  if ((await git.type(sha)) !== 'commit' || !(await git.isAncestor(sha, pull.headSha))) return false;
  const base = await git.mergeBase(pull.baseSha, pull.headSha);
  return base === null || !(await git.isAncestor(sha, base));
}

/**
 * Where a review comment stands now that the pull request may have moved on: on the head, at
 * the same line, while its file is unchanged since the comment's commit; outdated otherwise —
 * `line` null, `original_line` and `original_commit_id` what it was made on (GitHub's
 * "outdated" comments). GitHub follows the hunk rather than the file; a change of the file is
 * the emulator's stricter reading of "the code changed since".
 */
async function placedNow(emulator: Emulator, repo: Repo, pull: NonNullable<Issue['pull']>, c: ReviewComment): Promise<{ commitId: string; outdated: boolean }> {
  if (c.commitId === pull.headSha || c.line === null) return { commitId: pull.headSha, outdated: false };
  const changed = (await emulator.git(repo.owner, repo.name).diff(c.commitId, pull.headSha).catch(() => null))?.some((f) => f.path === c.path) ?? true;
  return changed ? { commitId: c.commitId, outdated: true } : { commitId: pull.headSha, outdated: false };
}

/**
 * GitHub places a review comment on a line of the diff it shows (a hunk, with its context
 * lines), and refuses the whole review when one comment is elsewhere — no review is kept:
 * 422 "Pull request review thread line must be part of the diff", and for a multi-line
 * comment "…start line must be part of the same hunk as the line." (parkerbxyz/suggest-changes#48,
 * The-PR-Agent/pr-agent#592; max-sixty/tend#252 saw nothing persisted after the 422). Only
 * comments by `line` on the RIGHT side are checked (what baton sends).
 */
async function refuseLinesOutsideTheDiff(
  emulator: Emulator,
  repo: Repo,
  pull: NonNullable<Issue['pull']>,
  commit: string,
  comments: { path: string; line?: number; side?: string; start_line?: number }[],
): Promise<void> {
  const placed = comments.filter((c) => c.line !== undefined && c.side !== 'LEFT');
  if (placed.length === 0) return;
  const git = emulator.git(repo.owner, repo.name);
  const base = await git.mergeBase(pull.baseSha, commit);
  const problems = new Set<string>();
  for (const c of placed) {
    const hunks = base === null ? [] : await git.rightHunks(base, commit, c.path);
    const hunk = hunks.find(([first, last]) => c.line! >= first && c.line! <= last);
    if (!hunk) {
      problems.add('Pull request review thread line must be part of the diff');
      problems.add("Pull request review thread diff hunk can't be blank");
    } else if (c.start_line !== undefined && (c.start_line < hunk[0] || c.start_line > c.line!)) {
      problems.add('Pull request review thread start line must be part of the same hunk as the line.');
    }
  }
  if (problems.size > 0) throw new HttpError(422, 'Unprocessable Entity', { errors: [[...problems].join(', and ')] });
}

/** What a new pull request is opened with: by the REST route, or by a fork (forks.ts). */
export interface NewPull {
  title: string;
  body: string | null;
  user: string;
  head: string;
  headRepo: string;
  base: string;
  headSha: string;
  baseSha: string;
  draft: boolean;
  maintainerCanModify: boolean;
}

/** Stores an open pull request and delivers its `pull_request.opened`; returns its REST shape. */
export async function openPull(emulator: Emulator, repo: Repo, p: NewPull): Promise<any> {
  const created = now();
  const issue: Issue = {
    number: repo.nextNumber++,
    id: emulator.store.nextId(),
    repoId: repo.id,
    title: p.title,
    body: p.body,
    user: p.user,
    state: 'open',
    stateReason: null,
    labels: [],
    assignees: [],
    locked: false,
    createdAt: created,
    updatedAt: created,
    closedAt: null,
    reactions: [],
    pull: {
      head: p.head,
      headRepo: p.headRepo,
      base: p.base,
      headSha: p.headSha,
      baseSha: p.baseSha,
      draft: p.draft,
      merged: false,
      mergedAt: null,
      mergeCommitSha: null,
      reviews: [],
      maintainerCanModify: p.maintainerCanModify,
    },
  };
  repo.issues.set(issue.number, issue);
  const json = await pullJson(emulator, repo, issue);
  emulator.webhooks.emit('pull_request', { action: 'opened', number: issue.number, pull_request: json }, { owner: repo.owner, repo: repo.name, sender: p.user });
  return json;
}
