// Webhook payload → handler input, once for both entry points: the App (Probot
// webhooks) and Actions-only mode (the event that started the job). Each route unpacks
// only what its handler needs; the handlers decide.
import type { SuiteResult } from '../engine/index.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { runIdOfPullBody } from '../hosts/github/run-id.ts';
import { fromFork } from '../action/route-key.ts';
import { factsOfRun } from '../hosts/github/worker-provenance.ts';
import { onCheckRun, onCheckSuite, onStatus } from './handlers/checks.ts';
import { onWorkflowRunEnded } from './handlers/doctor.ts';
import { originOfRun } from '../hosts/github/suite-owner.ts';
import { onComment } from './handlers/comment.ts';
import { onIssueEvent, onPullRequestEvent } from './handlers/events.ts';
import { onLabeled } from './handlers/label.ts';
import { onPullClosed } from './handlers/pull-closed.ts';
import { onReview } from './handlers/review.ts';
import { onWorkerRunCompleted } from './handlers/worker.ts';
import type { Log, RunService } from './runs.ts';

export interface RouteEnv {
  log: Log;
  /** The App's own id (its check suites are not CI); null in Actions-only mode. */
  ourAppId: number | null;
  /**
   * Actions-only mode learns of CI dispatched by `checks.workflow` from workflow_run; the
   * App hears of the same CI through check_suite and leaves other workflows alone.
   */
  workflowRunAsChecks: boolean;
  /**
   * Actions-only: the job's comment comes after every older one was settled (action/catch-up.ts),
   * so its event settles each up to its id. Absent in the App, whose keys are deliveries'.
   */
  settlesComment?: number;
}

export type Route = (runs: RunService, gh: RepoContext, payload: any, key: string, env: RouteEnv) => Promise<void>;

type User = { login?: string; type?: string } | null | undefined;

export const isBot = (u: User): boolean => u?.type === 'Bot' || (u?.login ?? '').endsWith('[bot]');

const thread = (item: { number: number; title: string; body?: string | null; html_url: string }, isPull: boolean) => ({
  number: item.number,
  isPull,
  title: item.title,
  body: item.body ?? null,
  url: item.html_url,
});

const labeled =
  (isPull: boolean): Route =>
  (runs, gh, p, key, env) =>
    p.label
      ? onLabeled(runs, gh, { label: p.label.name, thread: thread(isPull ? p.pull_request : p.issue, isPull), sender: p.sender.login, senderIsBot: isBot(p.sender), key }, env.log)
      : Promise.resolve();

const pullRequestEvent: Route = (runs, gh, p, key, env) => {
  const pr = p.pull_request;
  return onPullRequestEvent(
    runs,
    gh,
    {
      action: p.action,
      thread: thread(pr, true),
      draft: Boolean(pr.draft),
      baseRef: pr.base.ref,
      headRef: pr.head.ref,
      headSha: pr.head.sha,
      headRepo: pr.head.repo?.full_name ?? null,
      author: pr.user?.login ?? '',
      authorIsBot: isBot(pr.user),
      sender: p.sender?.login ?? '',
      senderIsBot: isBot(p.sender),
      changedFiles: typeof pr.changed_files === 'number' ? pr.changed_files : null,
      key,
    },
    env.log,
  );
};

/**
 * Actions-only mode: a fork's pull request reaches baton.yml as `pull_request_target` (the
 * base repository's workflow, token and secrets: docs "Events that trigger workflows",
 * pull_request_target), and goes the way the App's `pull_request` delivery goes. A pull
 * request of this repository is the `pull_request` event's (route-key.ts skips its job): none here.
 */
const pullRequestTargetEvent: Route = (runs, gh, p, key, env) => {
  if (!fromFork(p)) {
    env.log.info(`pull_request_target for pull request #${p.pull_request?.number} of this repository: its pull_request event handles it`);
    return Promise.resolve();
  }
  return pullRequestEvent(runs, gh, p, key, env);
};

const issueEvent: Route = (runs, gh, p, key, env) =>
  onIssueEvent(
    runs,
    gh,
    { action: p.action, thread: thread(p.issue, false), author: p.issue.user?.login ?? '', authorIsBot: isBot(p.issue.user), sender: p.sender?.login ?? '', senderIsBot: isBot(p.sender), key },
    env.log,
  );

/** `<event>.<action>` (or the bare event name) → its route. */
export const ROUTES: Record<string, Route> = {
  'issues.labeled': labeled(false),
  'pull_request.labeled': labeled(true),
  // on.pull_request / on.issues (handlers/events.ts): the types a manifest may list.
  'pull_request.opened': pullRequestEvent,
  'pull_request.synchronize': pullRequestEvent,
  'pull_request.reopened': pullRequestEvent,
  'pull_request.ready_for_review': pullRequestEvent,
  'pull_request.edited': pullRequestEvent,
  'pull_request_target.opened': pullRequestTargetEvent,
  'pull_request_target.synchronize': pullRequestTargetEvent,
  'pull_request_target.reopened': pullRequestTargetEvent,
  'pull_request_target.ready_for_review': pullRequestTargetEvent,
  'pull_request_target.edited': pullRequestTargetEvent,
  'issues.opened': issueEvent,
  'issues.reopened': issueEvent,
  'issues.edited': issueEvent,
  'issue_comment.created': (runs, gh, p, key, env) => {
    const isPull = Boolean(p.issue.pull_request);
    return onComment(
      runs,
      gh,
      {
        thread: thread(p.issue, isPull),
        commentId: p.comment.id,
        body: p.comment.body,
        author: p.comment.user?.login ?? '',
        authorIsBot: isBot(p.comment.user),
        createdAt: Date.parse(p.comment.created_at),
        updatedAt: Date.parse(p.comment.updated_at),
        key,
        pullRunId: isPull ? runIdOfPullBody(p.issue.body) : undefined,
        ...(env.settlesComment === p.comment.id && { settles: p.comment.id }),
      },
      env.log,
    );
  },
  'pull_request.closed': (runs, gh, p, _key, env) =>
    onPullClosed(runs, gh, { prNumber: p.pull_request.number, body: p.pull_request.body ?? null, headRepo: p.pull_request.head?.repo?.full_name ?? null, merged: Boolean(p.pull_request.merged) }, env.log),
  'pull_request_review.submitted': (runs, gh, p, key, env) =>
    onReview(
      runs,
      gh,
      {
        headRef: p.pull_request.head.ref,
        headRepo: p.pull_request.head.repo?.full_name ?? null,
        prNumber: p.pull_request.number,
        reviewId: p.review.id,
        state: p.review.state,
        body: p.review.body ?? null,
        author: p.review.user?.login ?? '',
        authorIsBot: isBot(p.review.user),
        key,
      },
      env.log,
    ),
  status: (runs, gh, p, key, env) =>
    onStatus(
      runs,
      gh,
      { sha: p.sha, context: p.context, state: p.state, description: p.description ?? null, url: p.target_url ?? null, at: p.created_at ?? null, branches: (p.branches ?? []).map((b: { name: string; commit?: { sha?: string | null } }) => ({ name: b.name, ...(b.commit?.sha ? { head: b.commit.sha } : {}) })), key },
      env.log,
    ),
  'check_run.completed': (runs, gh, p, key, env) => {
    const c = p.check_run;
    return onCheckRun(
      runs,
      gh,
      {
        name: c.name,
        status: c.status,
        conclusion: c.conclusion ?? null,
        sha: c.head_sha,
        branch: c.check_suite?.head_branch ?? null,
        app: c.app?.slug ?? null,
        summary: c.output?.summary ?? null,
        url: c.html_url ?? null,
        at: c.completed_at ?? c.started_at ?? null,
        appId: c.app?.id ?? null,
        ourAppId: env.ourAppId,
        suiteId: c.check_suite?.id ?? null,
        key,
      },
      env.log,
    );
  },
  'check_suite.completed': (runs, gh, p, key, env) =>
    onCheckSuite(runs, gh, { sha: p.check_suite.head_sha, branch: p.check_suite.head_branch ?? null, app: p.check_suite.app?.slug ?? null, appId: p.check_suite.app?.id ?? null, ourAppId: env.ourAppId, suite: suiteOf(p.check_suite), key }, env.log),
  'workflow_run.completed': async (runs, gh, p, key, env) => {
    const r = p.workflow_run;
    if (r.path === gh.workerWorkflow || String(r.path).endsWith(`/${gh.workerWorkflow}`)) {
      return onWorkerRunCompleted(runs, gh, { ...factsOfRun(r), path: r.path, displayTitle: r.display_title ?? '', conclusion: r.conclusion ?? null }, env.log);
    }
    // The CI doctor (`on.workflow_run`): CI on baton's run branches costs nothing; other runs one read of the default branch's head.
    const origin = originOfRun({ ...r, repository: r.repository ?? p.repository });
    await onWorkflowRunEnded(runs, gh, { id: r.id, attempt: r.run_attempt ?? 1, name: r.name ?? '', url: r.html_url ?? '', headSha: r.head_sha, origin, conclusion: r.conclusion ?? null, actor: r.actor?.login ?? '', actorIsBot: isBot(r.actor), key }, env.log);
    if (env.workflowRunAsChecks) {
      const suite = r.check_suite_id ? { id: String(r.check_suite_id), label: `workflow ${r.name ?? r.path}`, conclusion: r.conclusion ?? null } : null;
      // The workflow run says where it ran (a fork's pull request, another branch): no read needed.
      return onCheckSuite(runs, gh, { sha: r.head_sha, branch: r.head_branch ?? null, app: 'github-actions', run: origin, appId: null, ourAppId: null, suite, key }, env.log);
    }
  },
};

/** A completed check suite as the engine keeps it, named by its app. */
function suiteOf(s: { id?: number; conclusion?: string | null; app?: { name?: string } | null }): SuiteResult | null {
  return s.id ? { id: String(s.id), label: `${s.app?.name ?? 'an app'} (check suite ${s.id})`, conclusion: s.conclusion ?? null } : null;
}

export function routeFor(event: string, payload: { action?: unknown }): Route | undefined {
  const action = typeof payload.action === 'string' ? payload.action : undefined;
  return (action && ROUTES[`${event}.${action}`]) || ROUTES[event];
}
