/**
 * Steps of the scenarios that run workflows for real: dispatching one, waiting on its runs (the
 * emulator until its runner is idle, GitHub by polling), reading why a job failed, and deleting
 * the runs afterwards.
 */
import type { Octokit } from '@octokit/rest';
import { attempt, must, show, type Answer } from '../observe.ts';
import type { ScenarioContext } from '../types.ts';

/** A hosted runner is usually picked up within a minute; a few minutes leave room for a busy queue. */
export const RUN_SECONDS = 600;
/** How long a run the scenario expects may take to appear once its cause happened (GitHub: seconds). */
export const APPEAR_SECONDS = 120;

export const RUN_ROUTES = [
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
  'DELETE /repos/{owner}/{repo}/actions/runs/{run_id}',
];

export interface Run {
  id: number;
  event: string;
  status: string | null;
  conclusion: string | null;
  head_sha: string;
  check_suite_id?: number;
  triggering_actor?: { login: string } | null;
}

/**
 * Looks until `look` sees something or `seconds` passed, letting Actions move on in between.
 * On the emulator the look after its runner went idle is the last: nothing happens after it.
 */
export async function until<T>(ctx: ScenarioContext, seconds: number, look: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const seen = await look();
    if (seen !== undefined || Date.now() >= deadline) return seen;
    if (await ctx.target.settle()) return look();
  }
}

/** Every run of a workflow (by file name); none while GitHub does not know the file yet. */
export async function runsOf(ctx: ScenarioContext, octokit: Octokit, workflow: string): Promise<Run[]> {
  const { owner, repo } = ctx.target;
  const listed = await attempt(octokit.request('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', { owner, repo, workflow_id: workflow, per_page: 100 }));
  if (!listed.ok && listed.status === 404) return [];
  if (!listed.ok) throw new Error(`listing the runs of ${workflow}: ${show(listed)}`);
  return listed.data.workflow_runs as Run[];
}

/** The first run of `workflow` that `done` accepts, within `seconds`. */
export async function runOf(ctx: ScenarioContext, octokit: Octokit, workflow: string, seconds: number, done: (run: Run) => boolean): Promise<Run | undefined> {
  return until(ctx, seconds, async () => (await runsOf(ctx, octokit, workflow)).find(done));
}

/**
 * Dispatches `workflow` on `ref` and waits for its run to complete. GitHub indexes a workflow
 * file pushed a moment ago within seconds; until then the dispatch is refused, so it is tried
 * again for a little while.
 */
export async function dispatchAndWait(ctx: ScenarioContext, octokit: Octokit, workflow: string, ref: string): Promise<Run> {
  const { owner, repo } = ctx.target;
  let refused: Answer<unknown> | undefined;
  const dispatched = await until(ctx, APPEAR_SECONDS, async () => {
    const answer = await attempt(octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { owner, repo, workflow_id: workflow, ref }));
    refused = answer;
    return answer.ok ? answer : undefined;
  });
  if (dispatched === undefined) throw new Error(`dispatching ${workflow}: ${show(refused!)}`);
  const run = await runOf(ctx, octokit, workflow, RUN_SECONDS, (r) => r.status === 'completed');
  if (run === undefined) throw new Error(`${workflow}'s run did not complete within ${RUN_SECONDS} s`);
  return run;
}

/** The last lines of each failed job's log: what a scenario says when its own workflow broke. */
export async function failureOf(ctx: ScenarioContext, octokit: Octokit, run: Run): Promise<string> {
  const { owner, repo } = ctx.target;
  const { jobs } = await must(octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { owner, repo, run_id: run.id }), 'listing the jobs');
  const lines: string[] = [];
  for (const job of jobs.filter((j) => j.conclusion !== 'success')) {
    const log = await attempt(octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', { owner, repo, job_id: job.id }));
    const text = log.ok ? String(log.data) : show(log);
    lines.push(`${job.name}: ${text.trim().split('\n').slice(-5).join(' / ')}`);
  }
  return lines.join('; ') || `run ${run.id} concluded ${run.conclusion} without a failed job`;
}

/** Registers the deletion of every run of `workflows` (its logs and artifacts go with it); a run still going is cancelled first. */
export function deleteRunsLater(ctx: ScenarioContext, octokit: Octokit, workflows: string[]): void {
  const { owner, repo } = ctx.target;
  ctx.cleanup(`the runs of ${workflows.join(', ')}`, async () => {
    for (const workflow of workflows) {
      for (const run of await runsOf(ctx, octokit, workflow)) {
        if (run.status !== 'completed') {
          await attempt(octokit.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { owner, repo, run_id: run.id }));
          await runOf(ctx, octokit, workflow, APPEAR_SECONDS, (r) => r.id === run.id && r.status === 'completed');
        }
        await must(octokit.request('DELETE /repos/{owner}/{repo}/actions/runs/{run_id}', { owner, repo, run_id: run.id }), `deleting run ${run.id} of ${workflow}`);
      }
    }
  });
}

/** A `run:` step's shell function calling the REST API with the job's token; on an error status it prints GitHub's answer and fails. */
export const API_FUNCTION = `api() { code=$(curl -sS -o response.json -w '%{http_code}' -H "authorization: token $TOKEN" -H 'accept: application/vnd.github+json' -H 'content-type: application/json' "$@"); if [ "$code" -ge 300 ]; then echo "$code $(cat response.json)"; return 1; fi; }`;
