// What a run's CI reported on a commit, read from GitHub: the one reader behind a `checks` gate
// that starts waiting (the engine's `read-checks`), the sweep's look at a waiting gate, and a
// suite's completion (`names: ["*"]` needs to know every suite finished). Which check runs are
// the run's is suite-owner.ts's rule; commit statuses need push access to post, so every one on
// the commit counts, as the `status` webhook's do (app/handlers/checks.ts). baton's own check
// runs and statuses are not CI.
import type { CheckResult } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { actionsRunsAt, isActionsApp, suiteOfRun, type WorkflowRunOrigin } from './suite-owner.ts';
import { checkRunResult, statusResult } from './translate.ts';

/** baton's own check runs and statuses (`baton / <workflow>[ / <step>]`). */
export const ours = (name: string): boolean => name.startsWith('baton / ');

export interface CiReading {
  checks: CheckResult[];
  /** Every check run read has completed (with none read: true; the engine never calls nothing green). */
  complete: boolean;
  /** The suites (ids) that have check runs of the run. */
  suites: Set<string>;
}

/**
 * The run's check runs on a commit: every check run of a suite that is the run's (baton's own
 * left out), whether all of them completed, and the suites that have check runs. Check runs of
 * a fork's pull request or of another branch at the same commit are not the run's CI.
 */
export async function checkRunsAt(gh: RepoContext, sha: string, branch: string): Promise<CiReading> {
  // `filter: all`: the default (`latest`) keeps one check run per name, and a foreign one newer
  // than the run's own would hide it. Of the run's own, the engine keeps the newest per name.
  const all = await gh.octokit.paginate('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: gh.owner, repo: gh.repo, ref: sha, filter: 'all', per_page: 100 });
  // Actions suites are known by their workflow runs: read only when there are some.
  const origins = all.some((c) => isActionsApp(c.app?.slug)) ? await actionsRunsAt(gh, sha) : new Map<string, WorkflowRunOrigin>();
  const runOf = (c: (typeof all)[number]) => origins.get(String(c.check_suite?.id));
  const theirs = all.filter((c) => !ours(c.name) && suiteOfRun({ app: c.app?.slug, run: runOf(c) }, branch));
  const suites = new Set(theirs.map((c) => String(c.check_suite?.id)));
  return { checks: theirs.map((c) => checkRunResult(c.name, c.status, c.conclusion, c.output?.summary, c.html_url, c.completed_at ?? c.started_at)), complete: theirs.every((c) => c.status === 'completed'), suites };
}

/** The commit's statuses, the newest per context (GitHub's combined status), baton's own left out. */
export async function statusesAt(gh: RepoContext, sha: string): Promise<CheckResult[]> {
  const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { owner: gh.owner, repo: gh.repo, ref: sha, per_page: 100 });
  return data.statuses.filter((s) => !ours(s.context)).map((s) => statusResult(s.context, s.state, s.description, s.target_url, s.updated_at));
}

/** Everything the run's CI reported on a commit: its check runs and the commit's statuses. */
export async function ciAt(gh: RepoContext, sha: string, branch: string): Promise<CiReading> {
  const [runs, statuses] = await Promise.all([checkRunsAt(gh, sha, branch), statusesAt(gh, sha)]);
  // A pending status is CI not yet done, as a running check run is.
  return { checks: [...runs.checks, ...statuses], complete: runs.complete && statuses.every((s) => s.conclusion !== null), suites: runs.suites };
}
