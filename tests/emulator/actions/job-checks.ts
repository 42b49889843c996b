// Jobs as check runs: on GitHub every job of a workflow run is a check run of the app
// `github-actions` (same name, status and conclusion as the job, moving as it does) in the
// check suite of its workflow run, which completes with the run — docs "About status
// checks" and "Using the REST API to interact with checks". What the emulator's checks
// routes hold is updated here, with the same `check_run`/`check_suite` webhooks.
import { checkSuitesOf } from '../check-suites.ts';
import type { Emulator } from '../emulator.ts';
import { now, type CheckRun } from '../store.ts';
import type { ActionsHost } from './host.ts';

type JobCheckHooks = Required<Pick<ActionsHost, 'createCheckSuite' | 'jobChanged' | 'runChanged'>>;

export function jobCheckRuns(emulator: Emulator): JobCheckHooks {
  const suites = checkSuitesOf(emulator);
  const senderOf = (actor: Record<string, unknown>): string => String(actor.login ?? 'github-actions[bot]');
  return {
    // A fork's pull request run: which branch its suite names is undocumented (readings.ts, forkSuiteHeadBranch).
    createCheckSuite: (run, headSha) => {
      const branch = run.headRepository && emulator.readings.forkSuiteHeadBranch === 'null' ? null : run.headBranch || null;
      return suites.forWorkflowRun(emulator.repo(run.owner, run.repo), run.id, headSha, branch).id;
    },

    jobChanged: async (run, job) => {
      const repo = emulator.repo(run.owner, run.repo);
      const suite = suites.suite(run.checkSuiteId);
      const existing = job.checkRunId === undefined ? undefined : emulator.store.checkRuns.get(job.checkRunId);
      const check: CheckRun = existing ?? {
        id: emulator.store.nextId(),
        repoId: repo.id,
        suiteId: suite.id,
        name: job.name,
        headSha: suite.headSha,
        externalId: null,
        detailsUrl: `${emulator.webUrl}/${run.owner}/${run.repo}/actions/runs/${run.id}/job/${job.id}`,
        status: 'queued',
        conclusion: null,
        // The webhook schema has check_run.started_at as a string: a check run has one from creation.
        startedAt: job.startedAt ?? now(),
        completedAt: null,
        output: { title: null, summary: null, text: null, annotations: [] },
        actions: [],
      };
      const wasCompleted = existing?.status === 'completed';
      check.name = job.name;
      check.status = job.status;
      check.conclusion = job.conclusion;
      if (job.status !== 'queued' && job.startedAt) check.startedAt = job.startedAt;
      if (job.status === 'completed') check.completedAt = job.completedAt ?? now();
      if (suite.status === 'queued' && job.status !== 'queued') suite.status = 'in_progress';
      const sender = senderOf(run.actor);
      if (!existing) {
        emulator.store.checkRuns.set(check.id, check);
        job.checkRunId = check.id;
        suites.emitRun(repo, check, 'created', sender);
      }
      if (check.status === 'completed' && !wasCompleted) suites.emitRun(repo, check, 'completed', sender);
    },

    runChanged: async (run) => {
      const repo = emulator.repo(run.owner, run.repo);
      const suite = suites.suite(run.checkSuiteId);
      if (run.status !== 'completed') {
        if (suite.status === 'completed') suites.reopen(suite); // a re-run attempt
        return;
      }
      await suites.complete(repo, suite, run.conclusion ?? 'success', senderOf(run.actor));
    },
  };
}
