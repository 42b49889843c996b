/**
 * Check suites as GitHub keeps them, shared by the check-run routes and the Actions runner:
 *
 * - one suite per app per commit: a check run an app's installation creates joins that app's
 *   suite on its head SHA (docs "About status checks": "a check suite is a collection of the
 *   check runs created by a single GitHub App for a specific commit");
 * - GitHub Actions is the exception: each workflow run is a suite of its own (app
 *   `github-actions`), whose check runs are the run's jobs, and which completes with the run;
 *   a check run created with a job's GITHUB_TOKEN lands in an Actions suite of the commit —
 *   the first one, as there is no way to pick (jwgmeligmeyling/spotbugs-github-action
 *   issue #3, wearerequired/lint-action issue #401);
 * - `check_run` created/completed and `check_suite` completed webhooks on every change.
 */
import type { Emulator } from './emulator.ts';
import { ACTIONS_APP, now, type CheckRun, type CheckSuite, type Repo } from './store.ts';

/**
 * A suite's conclusion is the most important of its runs' (REST guide "About check suites").
 * `skipped` comes last: "If a check run or suite is never started, you'll see the skipped
 * conclusion" (GitHub changelog 2020-05-08, "skipped conclusion"), so a suite is skipped only
 * when every run in it is; one with a run that succeeded beside skipped ones succeeded (and the
 * webhooks' check_suite.conclusion has no `skipped` at all: @octokit/webhooks-schemas).
 */
const CONCLUSION_ORDER = ['action_required', 'cancelled', 'timed_out', 'failure', 'stale', 'startup_failure', 'neutral', 'success', 'skipped'];

export class CheckSuites {
  constructor(private readonly emulator: Emulator) {}

  private get store() {
    return this.emulator.store;
  }

  /** Per repository, the branch whose push first brought each commit (for `pushed-branch`). */
  private readonly pushedTo = new WeakMap<Repo, Map<string, string>>();

  /** push.ts: a branch moved to `sha`. The first branch to bring a commit keeps it. */
  notePush(repo: Repo, sha: string, branch: string): void {
    let seen = this.pushedTo.get(repo);
    if (seen === undefined) this.pushedTo.set(repo, (seen = new Map()));
    if (!seen.has(sha)) seen.set(sha, branch);
  }

  /** The new suite's `head_branch`: which branch is undocumented (readings.ts, `checkSuiteHeadBranch`). */
  private async branchAt(repo: Repo, sha: string): Promise<string | null> {
    switch (this.emulator.readings.checkSuiteHeadBranch) {
      case 'null':
        return null;
      case 'pushed-branch':
        return this.pushedTo.get(repo)?.get(sha) ?? null;
      case 'first-branch': {
        const refs = await this.emulator.git(repo.owner, repo.name).listRefs('refs/heads/');
        return refs.find((r) => r.sha === sha)?.ref.slice('refs/heads/'.length) ?? null;
      }
    }
  }

  private create(repo: Repo, app: string, headSha: string, headBranch: string | null, workflowRunId?: number): CheckSuite {
    const created = now();
    const suite: CheckSuite = {
      id: this.store.nextId(),
      repoId: repo.id,
      app,
      ...(workflowRunId !== undefined ? { workflowRunId } : {}),
      headSha,
      headBranch,
      status: 'queued',
      conclusion: null,
      createdAt: created,
      updatedAt: created,
    };
    this.store.checkSuites.set(suite.id, suite);
    return suite;
  }

  /** The suite a check run created by `app` on `headSha` joins (made on first use). */
  async suiteFor(repo: Repo, app: string, headSha: string): Promise<CheckSuite> {
    const mine = [...this.store.checkSuites.values()].filter((s) => s.repoId === repo.id && s.headSha === headSha && s.app === app).sort((a, b) => a.id - b.id);
    return mine[0] ?? this.create(repo, app, headSha, await this.branchAt(repo, headSha));
  }

  /** A new Actions suite for one workflow run. */
  forWorkflowRun(repo: Repo, workflowRunId: number, headSha: string, headBranch: string | null): CheckSuite {
    return this.create(repo, ACTIONS_APP, headSha, headBranch, workflowRunId);
  }

  suite(id: number): CheckSuite {
    return this.store.checkSuites.get(id)!;
  }

  runsOf(suite: CheckSuite): CheckRun[] {
    return [...this.store.checkRuns.values()].filter((r) => r.suiteId === suite.id);
  }

  emitRun(repo: Repo, run: CheckRun, action: 'created' | 'completed', sender: string): void {
    const { shapes } = this.emulator;
    const json = shapes.checkRun(repo, run);
    // Webhooks always carry a details URL: GitHub falls back to the run's page.
    const checkRun = { ...json, details_url: json.details_url ?? json.html_url, external_id: json.external_id ?? '', check_suite: this.suiteJson(repo, this.suite(run.suiteId)) };
    this.emulator.webhooks.emit('check_run', { action, check_run: checkRun }, { owner: repo.owner, repo: repo.name, sender });
  }

  private suiteJson(repo: Repo, suite: CheckSuite) {
    const { repository: _repository, head_commit: _head, latest_check_runs_count: _count, check_runs_url: _url, rerequestable: _r, runs_rerequestable: _rr, ...rest } =
      this.emulator.shapes.checkSuite(repo, suite, null);
    return rest;
  }

  /**
   * A suite completes when all its runs have; its conclusion is the worst of theirs. An
   * Actions suite of a workflow run follows the run instead (`complete`): a job's check run
   * exists only once the job starts, so finished runs do not mean a finished workflow.
   */
  async settle(repo: Repo, suite: CheckSuite, sender: string): Promise<void> {
    if (suite.workflowRunId !== undefined) return;
    const runs = this.runsOf(suite);
    const done = runs.every((r) => r.status === 'completed');
    suite.updatedAt = now();
    if (!done) {
      suite.status = runs.some((r) => r.status !== 'queued') ? 'in_progress' : 'queued';
      suite.conclusion = null;
      return;
    }
    const conclusion = runs.map((r) => r.conclusion ?? 'success').sort((a, b) => CONCLUSION_ORDER.indexOf(a) - CONCLUSION_ORDER.indexOf(b))[0] ?? 'success';
    await this.complete(repo, suite, conclusion, sender);
  }

  /** Completes a suite (once) and sends `check_suite` completed. */
  async complete(repo: Repo, suite: CheckSuite, conclusion: string, sender: string): Promise<void> {
    const before = suite.status;
    suite.status = 'completed';
    suite.conclusion = conclusion;
    suite.updatedAt = now();
    if (before === 'completed') return;
    const head = await this.emulator.git(repo.owner, repo.name).readCommit(suite.headSha);
    const { repository: _repository, ...checkSuite } = this.emulator.shapes.checkSuite(repo, suite, head);
    this.emulator.webhooks.emit('check_suite', { action: 'completed', check_suite: checkSuite }, { owner: repo.owner, repo: repo.name, sender });
  }

  /** Marks an Actions suite in progress again (a re-run attempt). */
  reopen(suite: CheckSuite): void {
    suite.status = 'in_progress';
    suite.conclusion = null;
    suite.updatedAt = now();
  }
}

/** The emulator's check suites (one service per emulator). */
const services = new WeakMap<Emulator, CheckSuites>();
export function checkSuitesOf(emulator: Emulator): CheckSuites {
  let s = services.get(emulator);
  if (s === undefined) {
    s = new CheckSuites(emulator);
    services.set(emulator, s);
  }
  return s;
}
