// CI results on a run branch: `status`, `check_run.completed` and `check_suite.completed`
// become `checks.reported` for each run whose branch has the commit as its head (which runs
// those are: run-branches.ts). baton's own check runs are not CI and are skipped.
import type { RepoContext } from '../../hosts/github/client.ts';
import { checkRunResult, statusResult } from '../../hosts/github/translate.ts';
import type { CheckResult, SuiteResult } from '../../engine/index.ts';
import type { Log, RunService } from '../runs.ts';
import { runIdsAt, STATUS_BRANCHES_LISTED, type NamedBranch } from './run-branches.ts';

const ours = (name: string): boolean => name.startsWith('baton / ');

function report(runs: RunService, gh: RepoContext, runId: string, key: string, sha: string, checks: CheckResult[], complete: boolean, log: Log, suites: SuiteResult[] = []) {
  return runs.onRun(gh, runId, () => [{ type: 'checks.reported', key, at: Date.now(), sha, checks, ...(complete ? { complete } : {}), ...(suites.length ? { suites } : {}) }], log);
}

export async function onStatus(
  runs: RunService,
  gh: RepoContext,
  ev: { sha: string; context: string; state: string; description: string | null; url: string | null; at: string | null; branches: NamedBranch[]; key: string },
  log: Log,
): Promise<void> {
  if (ours(ev.context)) return;
  for (const runId of await runIdsAt(gh, ev.sha, ev.branches, ev.branches.length < STATUS_BRANCHES_LISTED)) {
    await report(runs, gh, runId, ev.key, ev.sha, [statusResult(ev.context, ev.state, ev.description, ev.url, ev.at)], false, log);
  }
}

const named = (branch: string | null): NamedBranch[] => (branch === null ? [] : [{ name: branch }]);

/**
 * A workflow run's suite (app `github-actions`, `byActions` below) names the ref the run ran
 * on: believed as it is, no request. Another app's suite names a branch GitHub picked.
 */
export const isActionsApp = (slug: string | null | undefined): boolean => slug === 'github-actions';

export async function onCheckRun(
  runs: RunService,
  gh: RepoContext,
  ev: { name: string; status: string; conclusion: string | null; sha: string; branch: string | null; byActions: boolean; summary: string | null; url: string | null; at: string | null; appId: number | null; ourAppId: number | null; suiteId: number | null; key: string },
  log: Log,
): Promise<void> {
  if (ours(ev.name) || (ev.appId !== null && ev.appId === ev.ourAppId)) return;
  // A check run that ran tells that its suite is no longer held for approval (if it was).
  const ran = ev.suiteId !== null && ev.conclusion !== 'action_required';
  const suites = ran ? [{ id: String(ev.suiteId), label: '', conclusion: null }] : [];
  for (const runId of await runIdsAt(gh, ev.sha, named(ev.branch), ev.byActions)) {
    await report(runs, gh, runId, ev.key, ev.sha, [checkRunResult(ev.name, ev.status, ev.conclusion, ev.summary, ev.url, ev.at)], false, log, suites);
  }
}

/**
 * A suite finished: read every check run on the commit, so that `names: ["*"]` can decide.
 * The suite itself is reported too: one held for approval (`action_required`) has no check
 * runs to tell it (Actions-only mode: the workflow run stands for its suite).
 */
export async function onCheckSuite(
  runs: RunService,
  gh: RepoContext,
  ev: { sha: string; branch: string | null; byActions: boolean; appId: number | null; ourAppId: number | null; suite: SuiteResult | null; key: string },
  log: Log,
): Promise<void> {
  if (ev.appId !== null && ev.appId === ev.ourAppId) return;
  const runIds = await runIdsAt(gh, ev.sha, named(ev.branch), ev.byActions);
  if (runIds.length === 0) return;
  const { checks, complete, suites } = await checkRunsAt(gh, ev.sha);
  for (const runId of runIds) await report(runs, gh, runId, ev.key, ev.sha, checks, complete, log, suiteReport(ev.suite, suites));
}

/**
 * The suite as the engine should see it: one held for approval counts as such only while it
 * has no check runs (with check runs, they carry its state: `action_required` ones wait too).
 */
function suiteReport(suite: SuiteResult | null, suitesWithRuns: Set<string>): SuiteResult[] {
  if (!suite) return [];
  return [suitesWithRuns.has(suite.id) && suite.conclusion === 'action_required' ? { ...suite, conclusion: null } : suite];
}

/** Every CI check run on a commit (baton's own left out), whether all of them completed, and the suites that have check runs. */
export async function checkRunsAt(gh: RepoContext, sha: string): Promise<{ checks: CheckResult[]; complete: boolean; suites: Set<string> }> {
  const all = await gh.octokit.paginate('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: gh.owner, repo: gh.repo, ref: sha, per_page: 100 });
  const theirs = all.filter((c) => !ours(c.name));
  const suites = new Set(all.map((c) => String(c.check_suite?.id)));
  return { checks: theirs.map((c) => checkRunResult(c.name, c.status, c.conclusion, c.output?.summary, c.html_url, c.completed_at ?? c.started_at)), complete: theirs.every((c) => c.status === 'completed'), suites };
}
