// CI results on a run branch: `status`, `check_run.completed` and `check_suite.completed`
// become `checks.reported` for each run whose CI they are: a status for each run whose branch
// has the commit as its head (run-branches.ts), a check run only from a suite of the run
// (suite-owner.ts). baton's own check runs are not CI and are skipped.
import type { RepoContext } from '../../hosts/github/client.ts';
import { checkRunResult, statusResult } from '../../hosts/github/translate.ts';
import type { CheckResult, SuiteResult } from '../../engine/index.ts';
import type { Log, RunService } from '../runs.ts';
import { runIdsAt, STATUS_BRANCHES_LISTED, type NamedBranch } from './run-branches.ts';
import { actionsRunsAt, isActionsApp, suiteOfRun, type WorkflowRunOrigin } from '../../hosts/github/suite-owner.ts';
import { checkRunsAt, ours } from '../../hosts/github/ci-at.ts';
import { isRunBranch, runIdOfBranch } from '../../hosts/github/run-id.ts';
import { runBranch } from '../../engine/naming.ts';

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

/** A suite as an event names it: its app, id and head_branch, and its workflow run when the event carries it. */
interface EventSuite {
  app: string | null;
  id: string | null;
  branch: string | null;
  run?: WorkflowRunOrigin;
}

/**
 * The runs a suite at `sha` is CI of (suite-owner.ts). Another app's: the run branches at the
 * commit. An Actions suite names the ref its workflow run ran on, or nothing for a fork's
 * (readings.ts): one naming no run branch is no run's, without a request; one naming a run
 * branch is believed only once its workflow run says where it ran (this repository, that branch).
 */
async function runsOfSuite(gh: RepoContext, sha: string, suite: EventSuite): Promise<string[]> {
  if (!isActionsApp(suite.app)) return runIdsAt(gh, sha, named(suite.branch), false);
  if (suite.run === undefined && !isRunBranch(suite.branch)) return [];
  const run = suite.run ?? (suite.id === null ? undefined : (await actionsRunsAt(gh, sha)).get(suite.id));
  const runId = runIdOfBranch(run?.headBranch);
  return runId !== undefined && suiteOfRun({ app: suite.app, run }, runBranch(runId)) ? [runId] : [];
}

export async function onCheckRun(
  runs: RunService,
  gh: RepoContext,
  ev: { name: string; status: string; conclusion: string | null; sha: string; branch: string | null; app: string | null; summary: string | null; url: string | null; at: string | null; appId: number | null; ourAppId: number | null; suiteId: number | null; key: string },
  log: Log,
): Promise<void> {
  if (ours(ev.name) || (ev.appId !== null && ev.appId === ev.ourAppId)) return;
  // A check run that ran tells that its suite is no longer held for approval (if it was).
  const ran = ev.suiteId !== null && ev.conclusion !== 'action_required';
  const suites = ran ? [{ id: String(ev.suiteId), label: '', conclusion: null }] : [];
  for (const runId of await runsOfSuite(gh, ev.sha, { app: ev.app, id: ev.suiteId === null ? null : String(ev.suiteId), branch: ev.branch })) {
    await report(runs, gh, runId, ev.key, ev.sha, [checkRunResult(ev.name, ev.status, ev.conclusion, ev.summary, ev.url, ev.at)], false, log, suites);
  }
}

/**
 * A suite finished: read the run's CI on the commit, so that `names: ["*"]` can decide.
 * The suite itself is reported too: one held for approval (`action_required`) has no check
 * runs to tell it (Actions-only mode: the workflow run stands for its suite).
 */
export async function onCheckSuite(
  runs: RunService,
  gh: RepoContext,
  ev: { sha: string; branch: string | null; app: string | null; run?: WorkflowRunOrigin; appId: number | null; ourAppId: number | null; suite: SuiteResult | null; key: string },
  log: Log,
): Promise<void> {
  if (ev.appId !== null && ev.appId === ev.ourAppId) return;
  const runIds = await runsOfSuite(gh, ev.sha, { app: ev.app, id: ev.suite?.id ?? null, branch: ev.branch, ...(ev.run ? { run: ev.run } : {}) });
  for (const runId of runIds) {
    const { checks, complete, suites } = await checkRunsAt(gh, ev.sha, runBranch(runId));
    await report(runs, gh, runId, ev.key, ev.sha, checks, complete, log, suiteReport(ev.suite, suites));
  }
}

/**
 * The suite as the engine should see it: one held for approval counts as such only while it
 * has no check runs (with check runs, they carry its state: `action_required` ones wait too).
 */
function suiteReport(suite: SuiteResult | null, suitesWithRuns: Set<string>): SuiteResult[] {
  if (!suite) return [];
  return [suitesWithRuns.has(suite.id) && suite.conclusion === 'action_required' ? { ...suite, conclusion: null } : suite];
}
