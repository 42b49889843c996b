// The Actions REST endpoints, answering with GitHub's status codes and shapes. Downloads
// (artifact zips, job logs) answer 302 like GitHub; the location is the same endpoint
// with a one-off `download` key, served without a token as GitHub's signed blob links are.
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, type RouteContext, type RouteResult } from '../http/router.ts';
import { actor, paginate } from '../routes/util.ts';
import { DispatchError } from './dispatch.ts';
import { latestJobs, sameRepo, type RunRecord } from './records.ts';
import type { ActionsRunner } from './runner.ts';

const READ: ['actions', 'read'] = ['actions', 'read'];
const WRITE: ['actions', 'write'] = ['actions', 'write'];

interface DispatchBody {
  ref: string;
  inputs?: Record<string, unknown>;
  return_run_details?: boolean;
}

export function registerActionsRoutes(emulator: Emulator, runner: ActionsRunner): void {
  const r = emulator.router;
  const owner = (ctx: RouteContext) => ctx.params.owner ?? '';
  const repo = (ctx: RouteContext) => ctx.params.repo ?? '';
  const defaultBranch = (ctx: RouteContext) => emulator.repo(owner(ctx), repo(ctx)).defaultBranch;
  const requireRepo = (ctx: RouteContext) => {
    if (emulator.store.repo(owner(ctx), repo(ctx)) === undefined) throw notFound();
  };
  const runOf = (ctx: RouteContext): RunRecord => {
    const run = runner.store.runs.get(Number(ctx.params.run_id));
    if (!run || !sameRepo(run, owner(ctx), repo(ctx))) throw notFound();
    return run;
  };
  const runJson = (run: RunRecord) => runner.shapes.run(run, runner.headCommit(run.id));

  r.add('GET', '/repos/{owner}/{repo}/actions/workflows', async (ctx) => {
    requireRepo(ctx);
    const all = await runner.listWorkflows(owner(ctx), repo(ctx));
    const branch = defaultBranch(ctx);
    return paginate(ctx, all.map((w) => runner.shapes.workflow(w, branch)), (page) => ({ total_count: all.length, workflows: page }));
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}', async (ctx) => {
    requireRepo(ctx);
    const wf = await runner.findWorkflow(owner(ctx), repo(ctx), ctx.params.workflow_id ?? '');
    if (!wf) throw notFound();
    return { status: 200, body: runner.shapes.workflow(wf, defaultBranch(ctx)) };
  }, { permission: READ });

  r.add('POST', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', async (ctx) => {
    requireRepo(ctx);
    const body = ctx.body as DispatchBody;
    let run: RunRecord;
    try {
      run = await runner.dispatch({
        owner: owner(ctx),
        repo: repo(ctx),
        workflow: ctx.params.workflow_id ?? '',
        ref: body.ref,
        inputs: body.inputs ?? {},
        actor: emulator.shapes.user(actor(ctx)),
      });
    } catch (err) {
      if (err instanceof DispatchError) throw new HttpError(err.status, err.message);
      throw err;
    }
    if (body.return_run_details !== true) return { status: 204 };
    return { status: 200, body: { workflow_run_id: run.id, run_url: runner.shapes.runUrl(run), html_url: runner.shapes.runHtml(run) } };
  }, { permission: WRITE });

  const listRuns = (ctx: RouteContext, workflowId?: number): RouteResult => {
    const q = ctx.query;
    const status = q.get('status');
    const runs = runner.store
      .runsOf(owner(ctx), repo(ctx))
      .filter((run) => workflowId === undefined || run.workflowId === workflowId)
      .filter((run) => !status || run.status === status || run.conclusion === status)
      .filter((run) => !q.get('branch') || run.headBranch === q.get('branch'))
      .filter((run) => !q.get('event') || run.event === q.get('event'))
      .filter((run) => !q.get('head_sha') || (run.pullHeadSha ?? run.headSha) === q.get('head_sha'))
      .filter((run) => !q.get('actor') || run.actor.login === q.get('actor'))
      .filter((run) => !q.get('check_suite_id') || run.checkSuiteId === Number(q.get('check_suite_id')))
      .filter((run) => !q.get('created') || createdMatches(q.get('created')!, run.createdAt));
    return paginate(ctx, runs.map(runJson), (page) => ({ total_count: runs.length, workflow_runs: page }));
  };

  r.add('GET', '/repos/{owner}/{repo}/actions/runs', (ctx) => {
    requireRepo(ctx);
    return listRuns(ctx);
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', async (ctx) => {
    requireRepo(ctx);
    const wf = await runner.findWorkflow(owner(ctx), repo(ctx), ctx.params.workflow_id ?? '');
    if (!wf) throw notFound();
    return listRuns(ctx, wf.id);
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}', (ctx) => ({ status: 200, body: runJson(runOf(ctx)) }), { permission: READ });

  r.add('POST', '/repos/{owner}/{repo}/actions/runs/{run_id}/cancel', (ctx) => {
    const run = runOf(ctx);
    if (!runner.cancel(run.id)) throw new HttpError(409, 'Cannot cancel a workflow run that is completed.');
    return { status: 202, body: {} };
  }, { permission: WRITE });

  // GitHub deletes only completed runs (docs "Deleting a workflow run": "You can delete a
  // workflow run that has been completed"); a run still going answers 409, which the GitHub
  // CLI's `gh run delete` handles (cli/cli pkg/cmd/run/delete/delete.go). Needs actions:write.
  r.add('DELETE', '/repos/{owner}/{repo}/actions/runs/{run_id}', (ctx) => {
    const run = runOf(ctx);
    if (!runner.deleteRun(run.id)) throw new HttpError(409, 'Cannot delete a workflow run that is not completed.');
    return { status: 204 };
  }, { permission: WRITE });

  // Re-run is served once the operation is in the OpenAPI subset (tests/emulator/openapi/operations.ts).
  const rerun = '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun';
  if (emulator.openapi.operations.has(`POST ${rerun}`)) {
    r.add('POST', rerun, async (ctx) => {
      const run = runOf(ctx);
      if (!(await runner.rerun(run.id))) throw new HttpError(403, 'This workflow is already running');
      return { status: 201, body: {} };
    }, { permission: WRITE });
  }

  r.add('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs', (ctx) => {
    const run = runOf(ctx);
    const jobs = ctx.query.get('filter') === 'all' ? run.jobs : latestJobs(run);
    return paginate(ctx, jobs.map((j) => runner.shapes.job(run, j)), (page) => ({ total_count: jobs.length, jobs: page }));
  }, { permission: READ });

  const jobOf = (ctx: RouteContext) => {
    const job = runner.store.jobs.get(Number(ctx.params.job_id));
    const run = job && runner.store.runs.get(job.runId);
    if (!job || !run || !sameRepo(run, owner(ctx), repo(ctx))) throw notFound();
    return { job, run };
  };

  r.add('GET', '/repos/{owner}/{repo}/actions/jobs/{job_id}', (ctx) => {
    const { job, run } = jobOf(ctx);
    return { status: 200, body: runner.shapes.job(run, job) };
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs', (ctx) => {
    const { job } = jobOf(ctx);
    if (ctx.query.get('download') === downloadKey('log', job.id)) {
      return { status: 200, raw: Buffer.from(job.log.join('\n') + '\n'), headers: { 'content-type': 'text/plain; charset=utf-8' } };
    }
    return redirect(ctx, downloadKey('log', job.id));
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', (ctx) => {
    const run = runOf(ctx);
    return listArtifacts(ctx, run.id);
  }, { permission: READ });

  r.add('GET', '/repos/{owner}/{repo}/actions/artifacts', (ctx) => {
    requireRepo(ctx);
    return listArtifacts(ctx);
  }, { permission: READ });

  const repoId = (ctx: RouteContext) => emulator.repo(owner(ctx), repo(ctx)).id;
  const listArtifacts = (ctx: RouteContext, runId?: number): RouteResult => {
    const name = ctx.query.get('name');
    const all = runner.store.artifactsOf(owner(ctx), repo(ctx), runId).filter((a) => !name || a.name === name);
    const id = repoId(ctx);
    return paginate(ctx, all.map((a) => runner.shapes.artifact(a, id)), (page) => ({ total_count: all.length, artifacts: page }));
  };

  const artifactOf = (ctx: RouteContext) => {
    const a = runner.store.artifacts.get(Number(ctx.params.artifact_id));
    if (!a || !sameRepo(a, owner(ctx), repo(ctx))) throw notFound();
    return a;
  };

  r.add('GET', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}', (ctx) => ({ status: 200, body: runner.shapes.artifact(artifactOf(ctx), repoId(ctx)) }), {
    permission: READ,
  });

  r.add('GET', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', (ctx) => {
    const a = artifactOf(ctx);
    if (ctx.params.archive_format !== 'zip') throw notFound();
    if (ctx.query.get('download') === a.downloadKey) {
      return { status: 200, raw: Buffer.from(a.zip), headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename=${a.name}.zip` } };
    }
    return redirect(ctx, a.downloadKey);
  }, { permission: READ });

  function downloadKey(kind: string, id: number): string {
    return runner.downloadKey(`${kind}:${id}`);
  }
}

/**
 * GitHub's date search syntax for `created`: `2024-05-01`, `>=2024-05-01T10:00:00Z`,
 * `<2024-05-02`, `2024-05-01..2024-05-03`. A bare date matches that whole day.
 */
export function createdMatches(filter: string, createdAt: string): boolean {
  const at = Date.parse(createdAt);
  const range = /^(.+)\.\.(.+)$/.exec(filter);
  if (range) return createdMatches(`>=${range[1]}`, createdAt) && createdMatches(`<=${range[2]}`, createdAt);
  const m = /^(>=|<=|>|<)?(.+)$/.exec(filter)!;
  const op = m[1] ?? '=';
  const value = m[2]!;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const start = Date.parse(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(start)) return false;
  const end = day ? start + 86_400_000 : start + 1000;
  switch (op) {
    case '>=':
      return at >= start;
    case '>':
      return at >= end;
    case '<=':
      return at < end;
    case '<':
      return at < start;
    default:
      return at >= start && at < end;
  }
}

/** 302 to the same path with the download key, which the next request presents. */
function redirect(ctx: RouteContext, key: string): RouteResult {
  const path = ctx.route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ctx.params[name] ?? ''));
  return { status: 302, headers: { location: `${ctx.emulator.apiUrl}${path}?download=${key}` } };
}
