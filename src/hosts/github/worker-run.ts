// What became of a worker's Actions run when it did not simply succeed: deleted or expired
// (GitHub then answers 404 for it, its jobs and its artifacts), or cancelled — by a person,
// or by GitHub because its job ran past `timeout-minutes`. GitHub reports a timed-out job as
// `cancelled` (no `timed_out` conclusion for jobs, and the run concludes `cancelled`); what
// tells the two apart is the line GitHub writes at the end of the job's log:
// "The job running on runner … has exceeded the maximum execution time of N minutes."
import type { RepoContext } from './client.ts';
import { statusOf } from './client.ts';

/** The worker run answered 404: deleted by someone, or aged out with the repository's retention. */
export class WorkerRunGone extends Error {
  constructor(readonly runId: number) {
    super(`worker run ${runId} was deleted or expired (GitHub answers 404 for it), so its result is lost`);
  }
}

/** Runs `call`; a 404 means the worker run is gone. */
export async function orGone<T>(runId: number, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (statusOf(err) === 404) throw new WorkerRunGone(runId);
    throw err;
  }
}

const TIMED_OUT = /has exceeded the maximum execution time of ([\d.]+) minutes?/;

export interface CancelCause {
  reason: 'timed-out' | 'cancelled';
  error: string;
}

/** Why a cancelled worker run was cancelled: a job's time limit (read from its log), else someone outside baton. */
export async function cancelCause(gh: RepoContext, runId: number): Promise<CancelCause> {
  const o = { owner: gh.owner, repo: gh.repo };
  const jobs = await orGone(runId, () => gh.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { ...o, run_id: runId, per_page: 100 }));
  for (const job of jobs.data.jobs) {
    if (job.conclusion !== 'cancelled') continue;
    const log = await orGone(runId, () => gh.octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', { ...o, job_id: job.id }));
    const hit = TIMED_OUT.exec(String(log.data));
    if (hit) return { reason: 'timed-out', error: `its job \`${job.name}\` ran past its timeout-minutes (${hit[1]} minutes) and GitHub cancelled it` };
  }
  return { reason: 'cancelled', error: `worker run ${runId} was cancelled` };
}
