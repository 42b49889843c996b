/** Check runs and suites, commit statuses, and the webhooks their changes send. */
import { checkSuitesOf } from '../check-suites.ts';
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, validationFailed, type RouteContext } from '../http/router.ts';
import type { CheckRun, Repo, Status } from '../store.ts';
import { now } from '../store.ts';
import { actor, body, gitOf, paginate, repoOf, resolveCommitish } from './util.ts';

interface CheckRunInput {
  name?: string;
  head_sha?: string;
  details_url?: string;
  external_id?: string;
  status?: CheckRun['status'];
  started_at?: string;
  conclusion?: string;
  completed_at?: string;
  output?: { title?: string; summary?: string; text?: string; annotations?: unknown[] };
  actions?: CheckRun['actions'];
}

/**
 * `output.summary` and `output.text`: at most 65,535 bytes each. GitHub answers
 * "summary exceeds a maximum bytesize of 65535" (github/docs#35252, dorny/test-reporter#57).
 */
const OUTPUT_LIMIT_BYTES = 65535;
/**
 * "The Checks API limits the number of annotations to a maximum of 50 per API request"
 * (REST docs, "Update a check run"). The wording of the refusal is not documented.
 */
const MAX_ANNOTATIONS = 50;
/** The byte limits are the route's (checkOutput): the description's 65,535 characters would answer first, and not as GitHub does. */
const OUTPUT_FIELDS = ['output.summary', 'output.text'];

/** A `status` webhook lists at most this many of the branches containing the commit. */
export const STATUS_BRANCHES_MAX = 10;

export function registerCheckRoutes(emulator: Emulator): void {
  const { router, store, shapes, webhooks } = emulator;

  const suites = checkSuitesOf(emulator);

  /**
   * The app a check run is created by: the installation's (GitHub Actions for a job's
   * GITHUB_TOKEN). The checks API is for GitHub Apps only: a person's token gets 403 (REST
   * docs "Create a check run"; actions/github-script issue #118).
   */
  const appOf = (ctx: RouteContext): string => {
    if (ctx.auth.kind !== 'installation') throw new HttpError(403, 'You must authenticate via a GitHub App.');
    return store.appOfLogin(ctx.auth.login).slug;
  };

  const checkOutput = (input: CheckRunInput) => {
    for (const field of ['summary', 'text'] as const) {
      const value = input.output?.[field];
      // Bytes of UTF-8, not characters, whatever the docs say (github/docs#35252).
      if (value !== undefined && Buffer.byteLength(value, 'utf8') > OUTPUT_LIMIT_BYTES) {
        throw validationFailed([{ resource: 'CheckRun', field, code: 'custom', message: `${field} exceeds a maximum bytesize of ${OUTPUT_LIMIT_BYTES}` }]);
      }
    }
    const annotations = input.output?.annotations?.length ?? 0;
    if (annotations > MAX_ANNOTATIONS) {
      throw validationFailed([{ resource: 'CheckRun', field: 'annotations', code: 'custom', message: `Only ${MAX_ANNOTATIONS} annotations are allowed per request; ${annotations} were supplied.` }]);
    }
  };

  const apply = (run: CheckRun, input: CheckRunInput) => {
    if (input.name !== undefined) run.name = input.name;
    if (input.details_url !== undefined) run.detailsUrl = input.details_url;
    if (input.external_id !== undefined) run.externalId = input.external_id;
    if (input.started_at !== undefined) run.startedAt = input.started_at;
    if (input.status !== undefined) run.status = input.status;
    if (input.conclusion !== undefined) {
      run.conclusion = input.conclusion;
      run.status = 'completed';
    }
    if (run.status === 'completed') {
      run.completedAt = input.completed_at ?? run.completedAt ?? now();
      run.conclusion ??= 'success';
    }
    if (run.status === 'in_progress') run.startedAt ??= now();
    if (input.output !== undefined) {
      run.output = {
        title: input.output.title ?? run.output.title,
        summary: input.output.summary ?? run.output.summary,
        text: input.output.text ?? run.output.text,
        annotations: [...run.output.annotations, ...(input.output.annotations ?? [])],
      };
    }
    if (input.actions !== undefined) run.actions = input.actions;
  };

  const runOf = (ctx: RouteContext, repo: Repo): CheckRun => {
    const run = store.checkRuns.get(Number(ctx.params.check_run_id));
    if (run === undefined || run.repoId !== repo.id) throw notFound();
    return run;
  };

  router.add(
    'POST',
    '/repos/{owner}/{repo}/check-runs',
    async (ctx) => {
      const repo = repoOf(ctx);
      const input = body<CheckRunInput & { name: string; head_sha: string }>(ctx);
      const git = gitOf(ctx, repo);
      if (!/^[0-9a-f]{40}$/.test(input.head_sha) || (await git.type(input.head_sha)) !== 'commit') {
        throw validationFailed([{ resource: 'CheckRun', field: 'head_sha', code: 'invalid' }], `No commit found for SHA: ${input.head_sha}`);
      }
      // `conclusion`: "Required if you provide completed_at or a status of completed" (REST docs, "Create a check run").
      // `started_at` is taken as given, so a check run created completed still shows its duration.
      if ((input.status === 'completed' || input.completed_at !== undefined) && input.conclusion === undefined) {
        throw validationFailed([{ resource: 'CheckRun', field: 'conclusion', code: 'missing_field' }]);
      }
      checkOutput(input);
      const suite = await suites.suiteFor(repo, appOf(ctx), input.head_sha);
      const run: CheckRun = {
        id: store.nextId(),
        repoId: repo.id,
        suiteId: suite.id,
        name: input.name,
        headSha: input.head_sha,
        externalId: null,
        detailsUrl: null,
        status: 'queued',
        conclusion: null,
        startedAt: now(),
        completedAt: null,
        output: { title: null, summary: null, text: null, annotations: [] },
        actions: [],
      };
      apply(run, input);
      store.checkRuns.set(run.id, run);
      const sender = actor(ctx);
      suites.emitRun(repo, run, 'created', sender);
      if (run.status === 'completed') suites.emitRun(repo, run, 'completed', sender);
      await suites.settle(repo, suite, sender);
      return { status: 201, body: shapes.checkRun(repo, run) };
    },
    { permission: ['checks', 'write'], validates: OUTPUT_FIELDS },
  );

  router.add('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}', (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: shapes.checkRun(repo, runOf(ctx, repo)) };
  }, { permission: ['checks', 'read'] });

  router.add(
    'PATCH',
    '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const run = runOf(ctx, repo);
      appOf(ctx);
      const input = body<CheckRunInput>(ctx);
      checkOutput(input);
      const wasCompleted = run.status === 'completed';
      apply(run, input);
      const sender = actor(ctx);
      if (run.status === 'completed' && !wasCompleted) suites.emitRun(repo, run, 'completed', sender);
      await suites.settle(repo, suites.suite(run.suiteId), sender);
      return { status: 200, body: shapes.checkRun(repo, run) };
    },
    { permission: ['checks', 'write'], validates: OUTPUT_FIELDS },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/commits/{ref}/check-runs',
    async (ctx) => {
      const repo = repoOf(ctx);
      const sha = await resolveCommitish(gitOf(ctx, repo), ctx.params.ref!);
      if (sha === null) throw new HttpError(422, `No commit found for SHA: ${ctx.params.ref}`);
      const name = ctx.query.get('check_name');
      const status = ctx.query.get('status');
      let runs = [...store.checkRuns.values()]
        .filter((r) => r.repoId === repo.id && r.headSha === sha && (name === null || r.name === name) && (status === null || r.status === status))
        .sort((a, b) => b.id - a.id);
      // `filter=latest` (the default) keeps the most recent run of each name.
      if ((ctx.query.get('filter') ?? 'latest') === 'latest') {
        const seen = new Set<string>();
        runs = runs.filter((r) => (seen.has(r.name) ? false : (seen.add(r.name), true)));
      }
      return paginate(ctx, runs.map((r) => shapes.checkRun(repo, r)), (page) => ({ total_count: runs.length, check_runs: page }));
    },
    { permission: ['checks', 'read'] },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/check-suites/{check_suite_id}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const suite = store.checkSuites.get(Number(ctx.params.check_suite_id));
      if (suite === undefined || suite.repoId !== repo.id) throw notFound();
      return { status: 200, body: shapes.checkSuite(repo, suite, await gitOf(ctx, repo).readCommit(suite.headSha)) };
    },
    { permission: ['checks', 'read'] },
  );

  // Commit statuses

  router.add(
    'POST',
    '/repos/{owner}/{repo}/statuses/{sha}',
    async (ctx) => {
      const repo = repoOf(ctx);
      const input = body<{ state: Status['state']; target_url?: string | null; description?: string | null; context?: string }>(ctx);
      const sha = ctx.params.sha!;
      const git = gitOf(ctx, repo);
      if (!/^[0-9a-f]{40}$/.test(sha) || (await git.type(sha)) !== 'commit') {
        throw validationFailed([{ resource: 'Status', field: 'sha', code: 'invalid' }], `No commit found for SHA: ${sha}`);
      }
      const created = now();
      const status: Status = {
        id: store.nextId(),
        repoId: repo.id,
        sha,
        state: input.state,
        context: input.context ?? 'default',
        description: input.description ?? null,
        targetUrl: input.target_url ?? null,
        creator: actor(ctx),
        createdAt: created,
        updatedAt: created,
      };
      store.statuses.push(status);
      const commit = await git.readCommit(sha);
      // "Each branch contains the given SHA, but the SHA may or may not be the head of the
      // branch. The array includes a maximum of 10 branches." (status webhook, GitHub's
      // description). Which 10 when more contain it is not documented: here the first in name order.
      const branches = (await git.branchesContaining(sha)).slice(0, STATUS_BRANCHES_MAX);
      webhooks.emit(
        'status',
        {
          id: status.id,
          sha,
          name: repo.fullName,
          target_url: status.targetUrl,
          avatar_url: null,
          context: status.context,
          description: status.description,
          state: status.state,
          commit: statusCommit(emulator, repo, commit),
          branches: branches.map((b) => ({ name: b.name, commit: { sha: b.sha, url: `${shapes.repoUrl(repo)}/commits/${b.sha}` }, protected: false })),
          created_at: status.createdAt,
          updated_at: status.updatedAt,
        },
        { owner: repo.owner, repo: repo.name, sender: status.creator },
      );
      return { status: 201, body: shapes.status(repo, status) };
    },
    { permission: ['statuses', 'write'] },
  );

  const statusesFor = async (ctx: RouteContext) => {
    const repo = repoOf(ctx);
    const sha = await resolveCommitish(gitOf(ctx, repo), ctx.params.ref!);
    if (sha === null) throw new HttpError(422, `No commit found for SHA: ${ctx.params.ref}`);
    return { repo, sha, statuses: store.statuses.filter((s) => s.repoId === repo.id && s.sha === sha).sort((a, b) => b.id - a.id) };
  };

  router.add(
    'GET',
    '/repos/{owner}/{repo}/commits/{ref}/status',
    async (ctx) => {
      const { repo, sha, statuses } = await statusesFor(ctx);
      const latest = new Map<string, Status>();
      for (const s of statuses) if (!latest.has(s.context)) latest.set(s.context, s);
      const all = [...latest.values()];
      const state = all.some((s) => s.state === 'error' || s.state === 'failure')
        ? 'failure'
        : all.length === 0 || all.some((s) => s.state === 'pending')
          ? 'pending'
          : 'success';
      const { owner, ...rest } = shapes.repository(repo);
      return {
        status: 200,
        body: {
          state,
          sha,
          total_count: all.length,
          statuses: all.map((s) => shapes.status(repo, s)),
          repository: { ...rest, owner },
          commit_url: `${shapes.repoUrl(repo)}/commits/${sha}`,
          url: `${shapes.repoUrl(repo)}/commits/${sha}/status`,
        },
      };
    },
    { permission: ['statuses', 'read'] },
  );

  router.add(
    'GET',
    '/repos/{owner}/{repo}/commits/{ref}/statuses',
    async (ctx) => {
      const { repo, statuses } = await statusesFor(ctx);
      return paginate(ctx, statuses.map((s) => shapes.status(repo, s)));
    },
    { permission: ['statuses', 'read'] },
  );
}

function statusCommit(emulator: Emulator, repo: Repo, commit: import('../git.ts').GitCommit) {
  const c = emulator.shapes.commit(repo, commit);
  return { ...c, commit: { ...c.commit, verification: { verified: false, reason: 'unsigned', signature: null, payload: null } } };
}
