/** Issues, their comments and labels, with the webhooks each change sends. */
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, validationFailed, type RouteContext } from '../http/router.ts';
import type { Comment, Issue, Repo } from '../store.ts';
import { now } from '../store.ts';
import { pullJson } from './pulls.ts';
import { actor, body, issueOf, paginate, repoOf, viaApp } from './util.ts';

type LabelInput = string | { name?: string };

function labelNames(input: unknown): string[] {
  const list = Array.isArray(input) ? input : ((input as { labels?: unknown }).labels ?? []);
  return (list as LabelInput[]).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((n) => n !== '');
}


/** GitHub's limits on a label (see the create-label route). */
const MAX_LABEL_NAME = 50;
/**
 * At most 100 labels on one issue or pull request: 422 "Validation Failed. Issues cannot have
 * more than 100 labels" (actions/labeler issue #115; github/docs issue #161).
 */
const MAX_ISSUE_LABELS = 100;
const MAX_LABEL_DESCRIPTION = 100;
/** Comments one issue or pull request takes at most (the create-comment route). */
export const MAX_ISSUE_COMMENTS = 2500;
export function commentOf(ctx: RouteContext, repo: Repo): Comment {
  const comment = ctx.emulator.store.comments.get(Number(ctx.params.comment_id));
  if (comment === undefined || comment.repoId !== repo.id) throw notFound();
  return comment;
}

/** `issues` for issues, `pull_request` for pull requests: the event a change of either sends. */
export async function emitIssueEvent(emulator: Emulator, repo: Repo, issue: Issue, action: string, extra: Record<string, unknown>, sender: string): Promise<void> {
  const context = { owner: repo.owner, repo: repo.name, sender };
  if (issue.pull === undefined) {
    emulator.webhooks.emit('issues', { action, issue: emulator.shapes.issue(repo, issue), ...extra }, context);
  } else {
    emulator.webhooks.emit('pull_request', { action, number: issue.number, pull_request: await pullJson(emulator, repo, issue), ...extra }, context);
  }
}

export function registerIssueRoutes(emulator: Emulator): void {
  const { router, store, shapes } = emulator;
  const read = { permission: ['issues', 'read'] as ['issues', 'read'] };
  const write = { permission: ['issues', 'write'] as ['issues', 'write'] };

  router.add(
    'GET',
    '/repos/{owner}/{repo}/issues',
    (ctx) => {
      const repo = repoOf(ctx);
      const state = ctx.query.get('state') ?? 'open';
      const labels = (ctx.query.get('labels') ?? '').split(',').filter((l) => l !== '').map((l) => l.toLowerCase());
      const creator = ctx.query.get('creator')?.toLowerCase();
      const since = ctx.query.get('since');
      let issues = [...repo.issues.values()].filter(
        (i) =>
          (state === 'all' || i.state === state) &&
          labels.every((l) => i.labels.some((name) => name.toLowerCase() === l)) &&
          (creator === undefined || i.user.toLowerCase() === creator) &&
          (since === null || i.updatedAt >= since),
      );
      const sort = ctx.query.get('sort') ?? 'created';
      const key = (i: Issue) => (sort === 'updated' ? i.updatedAt : sort === 'comments' ? String(i.number).padStart(10, '0') : i.createdAt) + String(i.number).padStart(10, '0');
      issues = issues.sort((a, b) => key(a).localeCompare(key(b)));
      if ((ctx.query.get('direction') ?? 'desc') === 'desc') issues.reverse();
      return paginate(ctx, issues.map((i) => shapes.issue(repo, i)));
    },
    read,
  );

  router.add(
    'POST',
    '/repos/{owner}/{repo}/issues',
    (ctx) => {
      const repo = repoOf(ctx);
      const request = body<{ title: string | number; body?: string | null; labels?: LabelInput[]; assignees?: string[]; assignee?: string | null }>(ctx);
      if (String(request.title).trim() === '') throw validationFailed([{ resource: 'Issue', field: 'title', code: 'missing_field' }]);
      const created = now();
      const issue: Issue = {
        number: repo.nextNumber++,
        id: store.nextId(),
        repoId: repo.id,
        title: String(request.title),
        body: request.body ?? null,
        user: actor(ctx),
        state: 'open',
        stateReason: null,
        labels: labelNames(request.labels ?? []).map((name) => store.label(repo, name).name),
        assignees: [...(request.assignees ?? []), ...(request.assignee ? [request.assignee] : [])],
        locked: false,
        createdAt: created,
        updatedAt: created,
        closedAt: null,
        reactions: [],
      };
      repo.issues.set(issue.number, issue);
      const context = { owner: repo.owner, repo: repo.name, sender: issue.user };
      emulator.webhooks.emit('issues', { action: 'opened', issue: shapes.issue(repo, issue) }, context);
      // An issue opened with labels also sends one `labeled` per label, after `opened`
      // (seen on GitHub: metabase/metabase PR #50271, preloop issue #667).
      for (const name of issue.labels) emulator.webhooks.emit('issues', { action: 'labeled', issue: shapes.issue(repo, issue), label: shapes.label(repo, store.label(repo, name)) }, context);
      return { status: 201, body: shapes.issue(repo, issue) };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/issues/{issue_number}', (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: shapes.issue(repo, issueOf(ctx, repo)) };
  }, read);

  router.add(
    'PATCH',
    '/repos/{owner}/{repo}/issues/{issue_number}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const issue = issueOf(ctx, repo);
      const request = body<{ title?: string | number | null; body?: string | null; state?: 'open' | 'closed'; state_reason?: Issue['stateReason']; labels?: LabelInput[]; assignees?: string[] }>(ctx);
      const sender = actor(ctx);
      const changes: Record<string, { from: string }> = {};
      if (request.title !== undefined && request.title !== null && String(request.title) !== issue.title) {
        changes.title = { from: issue.title };
        issue.title = String(request.title);
      }
      if (request.body !== undefined && request.body !== issue.body) {
        changes.body = { from: issue.body ?? '' };
        issue.body = request.body;
      }
      if (request.labels !== undefined) issue.labels = labelNames(request.labels).map((name) => store.label(repo, name).name);
      if (request.assignees !== undefined) issue.assignees = request.assignees;
      issue.updatedAt = now();
      if (Object.keys(changes).length > 0) await emitIssueEvent(emulator, repo, issue, 'edited', { changes }, sender);
      if (request.state !== undefined && request.state !== issue.state) {
        issue.state = request.state;
        issue.closedAt = request.state === 'closed' ? now() : null;
        issue.stateReason = request.state === 'closed' ? (request.state_reason ?? 'completed') : 'reopened';
        await emitIssueEvent(emulator, repo, issue, request.state === 'closed' ? 'closed' : 'reopened', {}, sender);
      }
      return { status: 200, body: shapes.issue(repo, issue) };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments', (ctx) => {
    const repo = repoOf(ctx);
    const issue = issueOf(ctx, repo);
    const since = ctx.query.get('since');
    const comments = [...store.comments.values()].filter((c) => c.repoId === repo.id && c.issueNumber === issue.number && (since === null || c.updatedAt >= since));
    return paginate(ctx, comments.map((c) => shapes.comment(repo, c)));
  }, read);

  // The repository's comments on all its issues and pull requests
  // (https://docs.github.com/rest/issues/comments#list-issue-comments-for-a-repository):
  // `since` keeps those last updated at or after it; `sort` is `created` (default) or `updated`;
  // `direction` is "ignored without the `sort` parameter", and the order is then ascending.
  router.add('GET', '/repos/{owner}/{repo}/issues/comments', (ctx) => {
    const repo = repoOf(ctx);
    const sinceText = ctx.query.get('since');
    const since = sinceText === null ? null : Date.parse(sinceText);
    if (since !== null && Number.isNaN(since)) throw validationFailed([{ resource: 'IssueComment', field: 'since', code: 'invalid' }]);
    const sort = ctx.query.get('sort');
    if (sort !== null && sort !== 'created' && sort !== 'updated') throw validationFailed([{ resource: 'IssueComment', field: 'sort', code: 'invalid' }]);
    const stamp = (c: Comment) => Date.parse(sort === 'updated' ? c.updatedAt : c.createdAt);
    const comments = [...store.comments.values()]
      .filter((c) => c.repoId === repo.id && (since === null || Date.parse(c.updatedAt) >= since))
      .sort((a, b) => stamp(a) - stamp(b) || a.id - b.id);
    if (sort !== null && ctx.query.get('direction') === 'desc') comments.reverse();
    return paginate(ctx, comments.map((c) => shapes.comment(repo, c)));
  }, read);

  router.add(
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    (ctx) => {
      const repo = repoOf(ctx);
      const issue = issueOf(ctx, repo);
      const text = body<{ body: string }>(ctx).body;
      if (text.length > 65536) throw validationFailed([{ resource: 'IssueComment', field: 'data', code: 'custom', message: 'Body is too long (maximum is 65536 characters)' }]);
      // A hard cap that cannot be lifted: past 2,500 comments GitHub refuses every new one
      // (digitaldrywood/detent#1540, 2026-07). Editing and deleting comments stay possible.
      if (store.commentCount(repo.id, issue.number) >= MAX_ISSUE_COMMENTS) throw new HttpError(403, `Commenting is disabled on issues with more than ${MAX_ISSUE_COMMENTS} comments`);
      const created = now();
      const comment: Comment = { id: store.nextId(), repoId: repo.id, issueNumber: issue.number, user: actor(ctx), body: text, createdAt: created, updatedAt: created, reactions: [], viaApp: viaApp(ctx) };
      store.comments.set(comment.id, comment);
      emulator.webhooks.emit(
        'issue_comment',
        { action: 'created', issue: shapes.issue(repo, issue), comment: shapes.comment(repo, comment) },
        { owner: repo.owner, repo: repo.name, sender: comment.user },
      );
      return { status: 201, body: shapes.comment(repo, comment) };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: shapes.comment(repo, commentOf(ctx, repo)) };
  }, read);

  // Editing a comment (https://docs.github.com/rest/issues/comments#update-an-issue-comment):
  // anyone with write access may edit anyone's comment, and the author stays the poster
  // ("Anyone with write access to a repository can edit comments on issues, pull requests, and
  // commits", https://docs.github.com/communities/moderating-comments-and-conversations/managing-disruptive-comments#editing-a-comment).
  // `updated_at` becomes the time of the edit, `created_at` stays (both to the second, as all of
  // GitHub's stamps); the `edited` delivery carries the body before it in `changes.body.from`
  // (https://docs.github.com/webhooks/webhook-events-and-payloads#issue_comment).
  router.add(
    'PATCH',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    (ctx) => {
      const repo = repoOf(ctx);
      const comment = commentOf(ctx, repo);
      const text = body<{ body: string }>(ctx).body;
      if (text.length > 65536) throw validationFailed([{ resource: 'IssueComment', field: 'data', code: 'custom', message: 'Body is too long (maximum is 65536 characters)' }]);
      const from = comment.body;
      comment.body = text;
      comment.updatedAt = now();
      const issue = repo.issues.get(comment.issueNumber)!;
      emulator.webhooks.emit(
        'issue_comment',
        { action: 'edited', changes: { body: { from } }, issue: shapes.issue(repo, issue), comment: shapes.comment(repo, comment) },
        { owner: repo.owner, repo: repo.name, sender: actor(ctx) },
      );
      return { status: 200, body: shapes.comment(repo, comment) };
    },
    write,
  );

  router.add(
    'DELETE',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    (ctx) => {
      const repo = repoOf(ctx);
      const comment = commentOf(ctx, repo);
      store.comments.delete(comment.id);
      const issue = repo.issues.get(comment.issueNumber)!;
      emulator.webhooks.emit(
        'issue_comment',
        { action: 'deleted', issue: shapes.issue(repo, issue), comment: shapes.comment(repo, comment) },
        { owner: repo.owner, repo: repo.name, sender: actor(ctx) },
      );
      return { status: 204 };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (ctx) => {
    const repo = repoOf(ctx);
    const issue = issueOf(ctx, repo);
    return paginate(ctx, issue.labels.map((name) => shapes.label(repo, store.label(repo, name))));
  }, read);

  router.add(
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    async (ctx) => {
      const repo = repoOf(ctx);
      const issue = issueOf(ctx, repo);
      const sender = actor(ctx);
      const names = labelNames(ctx.body);
      const fresh = new Set(names.map((n) => n.toLowerCase()).filter((n) => !issue.labels.some((l) => l.toLowerCase() === n)));
      if (issue.labels.length + fresh.size > MAX_ISSUE_LABELS) {
        throw validationFailed([{ resource: 'Issue', code: 'custom', field: 'labels', message: `Issues cannot have more than ${MAX_ISSUE_LABELS} labels` }]);
      }
      const added = [];
      for (const name of names) {
        // Adding a label the repository lacks creates it (colour ededed, no description), as
        // GitHub does: github/docs issue #35718 ("not only assigns existing labels but also
        // creates a new label if it does not already exist"). A name that matches one without
        // regard to case takes that label, in its own spelling.
        const label = store.label(repo, name);
        if (issue.labels.some((l) => l.toLowerCase() === name.toLowerCase())) continue;
        issue.labels.push(label.name);
        added.push(label);
      }
      if (added.length > 0) issue.updatedAt = now();
      for (const label of added) await emitIssueEvent(emulator, repo, issue, 'labeled', { label: shapes.label(repo, label) }, sender);
      return { status: 200, body: issue.labels.map((name) => shapes.label(repo, store.label(repo, name))) };
    },
    write,
  );

  router.add(
    'DELETE',
    '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const issue = issueOf(ctx, repo);
      const name = ctx.params.name!;
      const index = issue.labels.findIndex((l) => l.toLowerCase() === name.toLowerCase());
      if (index === -1) throw notFound('Label does not exist');
      const [removed] = issue.labels.splice(index, 1);
      issue.updatedAt = now();
      await emitIssueEvent(emulator, repo, issue, 'unlabeled', { label: shapes.label(repo, store.label(repo, removed!)) }, actor(ctx));
      return { status: 200, body: issue.labels.map((l) => shapes.label(repo, store.label(repo, l))) };
    },
    write,
  );

  // The repository's labels, in the order they were made (GitHub's order is its own; baton reads them all).
  router.add('GET', '/repos/{owner}/{repo}/labels', (ctx) => {
    const repo = repoOf(ctx);
    return paginate(ctx, [...repo.labels.values()].map((label) => shapes.label(repo, label)));
  }, read);

  router.add(
    'POST',
    '/repos/{owner}/{repo}/labels',
    (ctx) => {
      const repo = repoOf(ctx);
      const request = body<{ name: string; color?: string; description?: string }>(ctx);
      // Names are unique regardless of case: 422 `already_exists` (yegor256/0pdd issue #160:
      // "422 - Validation Failed … resource: Label code: already_exists field: name").
      if (repo.labels.has(request.name.toLowerCase())) throw validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }]);
      // At most 50 characters (github/docs issue #32156 quotes the answer; adding an unknown
      // label to an issue instead answers `invalid`, semantic-release/github issue #518).
      if ([...request.name].length > MAX_LABEL_NAME) throw validationFailed([{ resource: 'Label', code: 'custom', field: 'name', message: `name is too long (maximum is ${MAX_LABEL_NAME} characters)` }]);
      if (request.name.trim() === '') throw validationFailed([{ resource: 'Label', code: 'missing_field', field: 'name' }]);
      // Descriptions: at most 100 characters (REST docs "Create a label"; Financial-Times/github-label-sync issue #42).
      if (request.description !== undefined && [...request.description].length > MAX_LABEL_DESCRIPTION) {
        throw validationFailed([{ resource: 'Label', code: 'custom', field: 'description', message: `description is too long (maximum is ${MAX_LABEL_DESCRIPTION} characters)` }]);
      }
      // Six hex digits, no leading `#` (REST docs "Create a label": "without the leading #").
      if (request.color !== undefined && !/^[0-9a-fA-F]{6}$/.test(request.color)) throw validationFailed([{ resource: 'Label', code: 'invalid', field: 'color' }]);
      const label = store.label(repo, request.name, request.color?.toLowerCase() ?? 'ededed', request.description ?? null);
      return { status: 201, body: shapes.label(repo, label) };
    },
    write,
  );

  router.add('GET', '/repos/{owner}/{repo}/labels/{name}', (ctx) => {
    const repo = repoOf(ctx);
    const label = repo.labels.get(ctx.params.name!.toLowerCase());
    if (label === undefined) throw notFound();
    return { status: 200, body: shapes.label(repo, label) };
  }, read);
}
