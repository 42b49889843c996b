// mode: run — Actions-only mode: the event that started this job (GITHUB_EVENT_NAME and
// its payload) goes to the same handlers as the App's webhooks, with an Octokit holding
// the job's token. One process per event: the run is loaded from its status comment each
// time and reconciled (finished workers collected, what should exist ensured). The
// workflow's `concurrency` group (see mode route) keeps one writer per run.
import * as core from '@actions/core';
import { onCheckRun, onCheckSuite, onStatus } from '../../app/handlers/checks.ts';
import { onComment } from '../../app/handlers/comment.ts';
import { onLabeled } from '../../app/handlers/label.ts';
import { onReview } from '../../app/handlers/review.ts';
import { onWorkerRunCompleted } from '../../app/handlers/worker.ts';
import { RunService } from '../../app/runs.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { runIdOfPullBody } from '../../hosts/github/run-id.ts';
import { readEvent, repositoryOf, type ActionEvent } from '../event.ts';
import { actionLog, repoContextOf } from '../github.ts';
import type { Inputs } from '../inputs.ts';

type User = { login?: string; type?: string } | null | undefined;
type Handler = (runs: RunService, gh: RepoContext, p: any, key: string) => Promise<void>;

const isBot = (u: User): boolean => u?.type === 'Bot' || (u?.login ?? '').endsWith('[bot]');
const thread = (item: { number: number; title: string; body?: string | null; html_url: string }, isPull: boolean) => ({ number: item.number, isPull, title: item.title, body: item.body ?? null, url: item.html_url });

/** `<event>.<action>` (or the bare event) → the App handler it feeds. */
const HANDLERS: Record<string, Handler> = {
  'issues.labeled': (runs, gh, p, key) => onLabeled(runs, gh, { label: p.label?.name ?? '', thread: thread(p.issue, false), sender: p.sender.login, senderIsBot: isBot(p.sender), key }, actionLog),
  'pull_request.labeled': (runs, gh, p, key) => onLabeled(runs, gh, { label: p.label?.name ?? '', thread: thread(p.pull_request, true), sender: p.sender.login, senderIsBot: isBot(p.sender), key }, actionLog),
  'issue_comment.created': (runs, gh, p, key) => {
    const isPull = Boolean(p.issue.pull_request);
    return onComment(
      runs,
      gh,
      { thread: thread(p.issue, isPull), commentId: p.comment.id, body: p.comment.body, author: p.comment.user?.login ?? '', authorIsBot: isBot(p.comment.user), key, pullRunId: isPull ? runIdOfPullBody(p.issue.body) : undefined },
      actionLog,
    );
  },
  'pull_request_review.submitted': (runs, gh, p, key) =>
    onReview(
      runs,
      gh,
      { headRef: p.pull_request.head.ref, prNumber: p.pull_request.number, reviewId: p.review.id, state: p.review.state, body: p.review.body ?? null, author: p.review.user?.login ?? '', authorIsBot: isBot(p.review.user), key },
      actionLog,
    ),
  status: (runs, gh, p, key) =>
    onStatus(runs, gh, { sha: p.sha, context: p.context, state: p.state, description: p.description ?? null, url: p.target_url ?? null, branches: (p.branches ?? []).map((b: { name: string }) => b.name), key }, actionLog),
  'check_run.completed': (runs, gh, p, key) => {
    const c = p.check_run;
    return onCheckRun(
      runs,
      gh,
      { name: c.name, status: c.status, conclusion: c.conclusion ?? null, sha: c.head_sha, branch: c.check_suite?.head_branch ?? null, summary: c.output?.summary ?? null, url: c.html_url ?? null, appId: null, ourAppId: null, key },
      actionLog,
    );
  },
  'check_suite.completed': (runs, gh, p, key) => onCheckSuite(runs, gh, { sha: p.check_suite.head_sha, branch: p.check_suite.head_branch ?? null, appId: null, ourAppId: null, key }, actionLog),
  'workflow_run.completed': async (runs, gh, p, key) => {
    const r = p.workflow_run;
    // The worker workflow: a completion routed through workflow_run instead of the apply job.
    if (r.path === gh.workerWorkflow || String(r.path).endsWith(`/${gh.workerWorkflow}`)) {
      return onWorkerRunCompleted(runs, gh, { path: r.path, displayTitle: r.display_title ?? '', id: r.id, conclusion: r.conclusion ?? null }, actionLog);
    }
    // Any other workflow (CI dispatched by `checks.workflow`): read the checks of its head.
    return onCheckSuite(runs, gh, { sha: r.head_sha, branch: r.head_branch ?? null, appId: null, ourAppId: null, key }, actionLog);
  },
};

export function handlerFor(ev: ActionEvent): Handler | undefined {
  const action = typeof ev.payload.action === 'string' ? ev.payload.action : undefined;
  return (action && HANDLERS[`${ev.name}.${action}`]) || HANDLERS[ev.name];
}

export async function runMode(inputs: Inputs): Promise<void> {
  const ev = readEvent(process.env);
  const handler = handlerFor(ev);
  const what = `${ev.name}${typeof ev.payload.action === 'string' ? `.${ev.payload.action}` : ''}`;
  if (!handler) {
    core.info(`baton run: nothing to do for ${what}`);
    return;
  }
  if (!inputs.token) throw new Error('mode `run` needs the `token` input (the default, github.token, is fine when the job has the permissions in docs/actions-only.md)');
  const gh = repoContextOf({ token: inputs.token, apiUrl: apiUrl(), ...repositoryOf(ev, process.env), botLogin: inputs.botLogin, workerWorkflow: inputs.workerWorkflow, ...(inputs.stateSecret ? { stateSecret: inputs.stateSecret } : {}) });
  core.info(`baton run: ${what} on ${gh.owner}/${gh.repo} as ${gh.botLogin}`);
  const runs = new RunService();
  await handler(runs, gh, ev.payload, ev.id);
  await runs.idle();
}

export function apiUrl(): string {
  return process.env.GITHUB_API_URL || 'https://api.github.com';
}
