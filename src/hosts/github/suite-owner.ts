// Whose CI a check suite is: the one rule that routes `check_run`, `check_suite` and
// `workflow_run` events to a run AND picks the check runs a `checks` gate counts (App and
// Actions-only alike), so that what reaches a run and what its gate reads cannot disagree.
//
// - A GitHub Actions suite is one workflow run. It is the run's own only when that workflow run
//   ran on the run branch of THIS repository: head branch `baton/<run>`, head repository this
//   one. Anyone can open a pull request from a fork whose branch is the very same commit (the
//   run branch is public) and even has the same name; its `pull_request` workflow runs here,
//   and their check runs land on the run head's commit with names of the contributor's
//   choosing. Both facts are read from the workflow run, never from the suite's `head_branch`,
//   which for a fork may name the fork's branch or nothing (tests/emulator/readings.ts,
//   `forkSuiteHeadBranch`). A suite of another branch at the same commit (a writer's push or
//   dispatch elsewhere) is not the run's either.
// - Another app keeps one suite per commit, whatever branches hold it (readings.ts,
//   `checkSuiteHeadBranch`): no branch owns it, so the commit decides (the caller matches it
//   with the run's head) and the app is trusted as installed (docs/security.md).
import type { RepoContext } from './client.ts';

/** The app slug of GitHub Actions' suites (one per workflow run). */
export const isActionsApp = (slug: string | null | undefined): boolean => slug === 'github-actions';

/** Where a suite's workflow run ran: its head branch, and whether its head repository is this one. */
export interface WorkflowRunOrigin {
  headBranch: string | null;
  sameRepository: boolean;
}

/** A check suite as the rule needs it. */
export interface SuiteOrigin {
  app: string | null | undefined;
  /** An Actions suite's workflow run; undefined when none was found (then it is nobody's). */
  run?: WorkflowRunOrigin;
}

/**
 * The branch of THIS repository a workflow run ran on, or null when it ran on none: a fork's
 * pull request names the fork's branch as `head_branch` (docs "Events that trigger workflows",
 * workflow_run: branch filters match the head branch, a fork's too; jbolda/covector#328), and a
 * fork may call it `main` or `baton/<run>`. The checks gate and the CI doctor ask this one rule.
 */
export function branchOfRun(run: WorkflowRunOrigin): string | null {
  return run.sameRepository ? run.headBranch : null;
}

/** Whether a check suite is CI of the run whose branch is `runBranch` (the commit is the caller's to match). */
export function suiteOfRun(suite: SuiteOrigin, runBranch: string): boolean {
  if (!isActionsApp(suite.app)) return true;
  return suite.run !== undefined && branchOfRun(suite.run) === runBranch;
}

/** A workflow run object (REST or the `workflow_run` webhook) → where it ran. */
export function originOfRun(r: { head_branch?: string | null; head_repository?: { id?: number } | null; repository?: { id?: number } | null }): WorkflowRunOrigin {
  const head = r.head_repository?.id;
  return { headBranch: r.head_branch ?? null, sameRepository: head !== undefined && head === r.repository?.id };
}

/** Every Actions suite on a commit → where its workflow run ran: one paged read of the commit's workflow runs. */
export async function actionsRunsAt(gh: RepoContext, sha: string): Promise<Map<string, WorkflowRunOrigin>> {
  const runs = await gh.octokit.paginate('GET /repos/{owner}/{repo}/actions/runs', { owner: gh.owner, repo: gh.repo, head_sha: sha, per_page: 100 });
  return new Map(runs.filter((r) => r.check_suite_id).map((r) => [String(r.check_suite_id), originOfRun(r)]));
}
