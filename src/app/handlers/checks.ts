// CI results on a run branch: `status`, `check_run.completed` and `check_suite.completed`
// become `checks.reported` for the run named by the branch. baton's own check runs are
// not CI and are skipped.
import type { RepoContext } from '../../hosts/github/client.ts';
import { isRunBranch, runIdOfBranch } from '../../hosts/github/run-id.ts';
import { checkRunResult, statusResult } from '../../hosts/github/translate.ts';
import type { CheckResult, SuiteResult } from '../../engine/index.ts';
import type { Log, RunService } from '../runs.ts';

const ours = (name: string): boolean => name.startsWith('baton / ');

function report(runs: RunService, gh: RepoContext, runId: string, key: string, sha: string, checks: CheckResult[], complete: boolean, log: Log, suites: SuiteResult[] = []) {
  return runs.onRun(gh, runId, () => [{ type: 'checks.reported', key, at: Date.now(), sha, checks, ...(complete ? { complete } : {}), ...(suites.length ? { suites } : {}) }], log);
}

export async function onStatus(
  runs: RunService,
  gh: RepoContext,
  ev: { sha: string; context: string; state: string; description: string | null; url: string | null; branches: string[]; key: string },
  log: Log,
): Promise<void> {
  if (ours(ev.context)) return;
  for (const branch of ev.branches.filter(isRunBranch)) {
    await report(runs, gh, runIdOfBranch(branch)!, ev.key, ev.sha, [statusResult(ev.context, ev.state, ev.description, ev.url)], false, log);
  }
}

export async function onCheckRun(
  runs: RunService,
  gh: RepoContext,
  ev: { name: string; status: string; conclusion: string | null; sha: string; branch: string | null; summary: string | null; url: string | null; appId: number | null; ourAppId: number | null; suiteId: number | null; key: string },
  log: Log,
): Promise<void> {
  if (ours(ev.name) || (ev.appId !== null && ev.appId === ev.ourAppId) || !isRunBranch(ev.branch)) return;
  // A check run that ran tells that its suite is no longer held for approval (if it was).
  const ran = ev.suiteId !== null && ev.conclusion !== 'action_required';
  const suites = ran ? [{ id: String(ev.suiteId), label: '', conclusion: null }] : [];
  await report(runs, gh, runIdOfBranch(ev.branch)!, ev.key, ev.sha, [checkRunResult(ev.name, ev.status, ev.conclusion, ev.summary, ev.url)], false, log, suites);
}

/**
 * A suite finished: read every check run on the commit, so that `names: ["*"]` can decide.
 * The suite itself is reported too: one held for approval (`action_required`) has no check
 * runs to tell it (Actions-only mode: the workflow run stands for its suite).
 */
export async function onCheckSuite(
  runs: RunService,
  gh: RepoContext,
  ev: { sha: string; branch: string | null; appId: number | null; ourAppId: number | null; suite: SuiteResult | null; key: string },
  log: Log,
): Promise<void> {
  if ((ev.appId !== null && ev.appId === ev.ourAppId) || !isRunBranch(ev.branch)) return;
  const all = await gh.octokit.paginate('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: gh.owner, repo: gh.repo, ref: ev.sha, per_page: 100 });
  const theirs = all.filter((c) => !ours(c.name));
  const checks = theirs.map((c) => checkRunResult(c.name, c.status, c.conclusion, c.output?.summary, c.html_url));
  await report(runs, gh, runIdOfBranch(ev.branch)!, ev.key, ev.sha, checks, theirs.every((c) => c.status === 'completed'), log, suiteReport(ev.suite, all));
}

/**
 * The suite as the engine should see it: one held for approval counts as such only while it
 * has no check runs (with check runs, they carry its state: `action_required` ones wait too).
 */
function suiteReport(suite: SuiteResult | null, all: { check_suite?: { id: number } | null }[]): SuiteResult[] {
  if (!suite) return [];
  const hasRuns = all.some((c) => String(c.check_suite?.id) === suite.id);
  return [hasRuns && suite.conclusion === 'action_required' ? { ...suite, conclusion: null } : suite];
}
