// The Probot app: each handler unpacks its webhook into a plain event and hands it to a
// module that decides (handlers/). All run state lives on GitHub; what the process keeps
// (RunService) only saves requests and serialises work per run.
import type { ApplicationFunction, Context, Probot } from 'probot';
import type { GitHubClient } from '../hosts/github/client.ts';
import { runIdOfPullBody } from '../hosts/github/run-id.ts';
import { deliveryKey, repoContext, type AppConfig, type RepositoryPayload } from './context.ts';
import { onCheckRun, onCheckSuite, onStatus } from './handlers/checks.ts';
import { onComment } from './handlers/comment.ts';
import { onLabeled } from './handlers/label.ts';
import { onReview } from './handlers/review.ts';
import { onWorkerRunCompleted } from './handlers/worker.ts';
import { RunService } from './runs.ts';

export interface BatonAppOptions extends Partial<AppConfig> {
  /** Called with the run service once the app is loaded (tests wait on `idle()`). */
  onReady?: (runs: RunService) => void;
}

interface Identity {
  login: string;
  id: number;
}

const isBot = (user: { type?: string; login?: string } | null | undefined): boolean => user?.type === 'Bot' || (user?.login ?? '').endsWith('[bot]');

export function batonApp(options: BatonAppOptions = {}): ApplicationFunction {
  return (app: Probot) => {
    const stateSecret = options.stateSecret ?? process.env.BATON_STATE_SECRET;
    const config: AppConfig = {
      workerWorkflow: options.workerWorkflow ?? process.env.BATON_WORKER_WORKFLOW ?? 'baton-worker.yml',
      now: options.now ?? Date.now,
      ...(stateSecret ? { stateSecret } : {}),
    };
    const runs = new RunService(config.now);
    options.onReady?.(runs);

    // Who baton is on this GitHub: only comments by this login carry trusted state.
    let identity: Promise<Identity> | undefined;
    const who = (): Promise<Identity> => {
      identity ??= app
        .auth()
        .then((octokit) => octokit.request('GET /app'))
        .then((res) => ({ login: `${res.data!.slug}[bot]`, id: Number(res.data!.id) }));
      identity.catch(() => (identity = undefined));
      return identity;
    };
    const gh = async (context: Context) => {
      const repository = (context.payload as { repository?: RepositoryPayload }).repository;
      if (!repository) throw new Error(`the ${context.name} event ${context.id} names no repository`);
      return repoContext(context.octokit as unknown as GitHubClient, repository, (await who()).login, config);
    };

    app.on(['issues.labeled', 'pull_request.labeled'], async (context) => {
      const p = context.payload;
      const item = 'issue' in p ? p.issue : p.pull_request;
      if (!p.label) return;
      await onLabeled(
        runs,
        await gh(context),
        {
          label: p.label.name,
          thread: { number: item.number, isPull: !('issue' in p), title: item.title, body: item.body ?? null, url: item.html_url },
          sender: p.sender.login,
          senderIsBot: isBot(p.sender),
          key: deliveryKey(context.id),
        },
        context.log,
      );
    });

    app.on('issue_comment.created', async (context) => {
      const p = context.payload;
      const isPull = Boolean(p.issue.pull_request);
      await onComment(
        runs,
        await gh(context),
        {
          thread: { number: p.issue.number, isPull, title: p.issue.title, body: p.issue.body ?? null, url: p.issue.html_url },
          commentId: p.comment.id,
          body: p.comment.body,
          author: p.comment.user?.login ?? '',
          authorIsBot: isBot(p.comment.user),
          key: deliveryKey(context.id),
          pullRunId: isPull ? runIdOfPullBody(p.issue.body) : undefined,
        },
        context.log,
      );
    });

    app.on('pull_request_review.submitted', async (context) => {
      const p = context.payload;
      await onReview(
        runs,
        await gh(context),
        {
          headRef: p.pull_request.head.ref,
          prNumber: p.pull_request.number,
          reviewId: p.review.id,
          state: p.review.state,
          body: p.review.body ?? null,
          author: p.review.user?.login ?? '',
          authorIsBot: isBot(p.review.user),
          key: deliveryKey(context.id),
        },
        context.log,
      );
    });

    app.on('status', async (context) => {
      const p = context.payload;
      await onStatus(
        runs,
        await gh(context),
        { sha: p.sha, context: p.context, state: p.state, description: p.description ?? null, url: p.target_url ?? null, branches: p.branches.map((b) => b.name), key: deliveryKey(context.id) },
        context.log,
      );
    });

    app.on('check_run.completed', async (context) => {
      const c = context.payload.check_run;
      await onCheckRun(
        runs,
        await gh(context),
        {
          name: c.name,
          status: c.status,
          conclusion: c.conclusion ?? null,
          sha: c.head_sha,
          branch: c.check_suite?.head_branch ?? null,
          summary: c.output?.summary ?? null,
          url: c.html_url ?? null,
          appId: c.app?.id ?? null,
          ourAppId: (await who()).id,
          key: deliveryKey(context.id),
        },
        context.log,
      );
    });

    app.on('check_suite.completed', async (context) => {
      const s = context.payload.check_suite;
      await onCheckSuite(
        runs,
        await gh(context),
        { sha: s.head_sha, branch: s.head_branch ?? null, appId: s.app?.id ?? null, ourAppId: (await who()).id, key: deliveryKey(context.id) },
        context.log,
      );
    });

    app.on('workflow_run.completed', async (context) => {
      const r = context.payload.workflow_run;
      await onWorkerRunCompleted(runs, await gh(context), { path: r.path, displayTitle: r.display_title ?? '', id: r.id, conclusion: r.conclusion ?? null }, context.log);
    });

    app.on('installation', async (context) => {
      // Nothing to set up: baton keeps no state of its own. Logged for operators.
      context.log.info(`installation ${context.payload.installation.id} ${context.payload.action} on ${(context.payload.installation.account as { login?: string } | null)?.login ?? '?'}`);
    });
  };
}
