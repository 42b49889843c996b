// mode: run — Actions-only mode: the event that started this job (GITHUB_EVENT_NAME and
// its payload) goes to the same handlers as the App's webhooks, with an Octokit holding
// the job's token. One process per event: the run is loaded from its status comment each
// time and reconciled (finished workers collected, what should exist ensured). The
// workflow's `concurrency` group (see mode route) keeps one writer per run. On `schedule`
// (the cron `baton init` writes) it sweeps the repository's open runs instead (app/sweep.ts).
// A job waiting in that group is replaced by the next event's: so each job first handles the
// run's comments whose jobs were (catch-up.ts), and keys a comment by its id, not by the job.
import * as core from '@actions/core';
import { routeFor } from '../../app/routes.ts';
import { RunService } from '../../app/runs.ts';
import { sweepRepository } from '../../app/sweep.ts';
import { startScheduledRuns } from '../../app/handlers/schedule.ts';
import { cronText } from '../../engine/cron.ts';
import { isSweepSchedule, SWEEP_CRON } from '../../app/sweep-cron.ts';
import { readEvent, repositoryOf } from '../event.ts';
import { actionLog, repoContextOf } from '../github.ts';
import type { Inputs } from '../inputs.ts';
import { docsUrl } from '../../names.ts';
import { replyOnce } from '../../app/replies.ts';
import { ourAppIdOf } from '../own-events.ts';
import { catchUpComments, commentKey } from '../catch-up.ts';
import { concurrencyKey } from '../route-key.ts';

export async function runMode(inputs: Inputs): Promise<void> {
  const ev = readEvent(process.env);
  const handler = routeFor(ev.name, ev.payload);
  const what = `${ev.name}${typeof ev.payload.action === 'string' ? `.${ev.payload.action}` : ''}`;
  const scheduled = ev.name === 'schedule';
  if (!handler && !scheduled) {
    core.info(`baton run: nothing to do for ${what}`);
    return;
  }
  if (!inputs.token) throw new Error(`mode \`run\` needs the \`token\` input (the default, github.token, is fine when the job has the permissions in ${docsUrl('actions-only.md')})`);
  const gh = repoContextOf({ token: inputs.token, apiUrl: apiUrl(), ...repositoryOf(ev, process.env), botLogin: inputs.botLogin, workerWorkflow: inputs.workerWorkflow, keepBranches: inputs.keepBranches, ...(inputs.stateSecret ? { stateSecret: inputs.stateSecret } : {}) });
  if (!inputs.stateSecret) {
    // Without a key, anyone whose workflow can comment could hand a run a state of their choosing.
    const number = threadOf(ev.payload);
    if (number !== undefined) await replyOnce(gh, number, 'setup/state-secret', MISSING_STATE_SECRET);
    throw new Error(MISSING_STATE_SECRET);
  }
  core.info(`baton run: ${what} on ${gh.owner}/${gh.repo} as ${gh.botLogin}`);
  const runs = new RunService();
  if (scheduled) {
    // Each cron of baton.yml is a workflow's `on.schedule` (baton init writes them from the
    // manifests) or the sweep's, or both: a manifest may tick every 5 minutes too. Its tick came.
    const cron = cronText(typeof ev.payload.schedule === 'string' ? ev.payload.schedule : SWEEP_CRON);
    const r = await startScheduledRuns(runs, gh, { at: Date.now(), crons: [cron] }, actionLog);
    if (r.started.length) core.info(`baton run: schedule ${JSON.stringify(cron)} started ${r.started.join(', ')}`);
    await runs.idle();
    // The same test as the route job's key (route-key.ts), so both agree on which is the sweep.
    if (!isSweepSchedule(ev.payload)) {
      if (!r.started.length) core.info(`baton run: schedule ${JSON.stringify(cron)} started nothing (its tick had started its runs already)`);
      return;
    }
    // Deadlines without events: the sweep visits the open runs.
    const swept = await sweepRepository(runs, gh, Date.now, actionLog);
    core.info(`baton run: swept ${swept.swept} of ${swept.runs} runs${swept.failed ? ` (${swept.failed} failed, see the warnings above)` : ''}`);
    return;
  }
  const ourAppId = ourAppIdOf(ev.name, ev.payload, gh.botLogin);
  if (ev.name === 'check_suite' && ourAppId !== null) {
    core.info(`baton run: ${what} is baton's own check suite; nothing to do`);
    return;
  }
  // Comments first, oldest first: a displaced `/baton cancel` comes before the event that displaced it.
  const comment = ev.name === 'issue_comment' ? (ev.payload.comment as { id?: number } | undefined)?.id : undefined;
  const thread = Number(concurrencyKey(ev.name, ev.payload));
  const caught = Number.isInteger(thread) ? await catchUpComments(runs, gh, { thread, ...(comment !== undefined ? { except: comment } : {}) }, actionLog) : { complete: true };
  // Every comment before the job's own settled: its event may carry its id as the run's mark.
  const settles = comment !== undefined && caught.complete ? comment : undefined;
  await handler!(runs, gh, ev.payload, comment !== undefined ? commentKey(comment) : ev.id, { log: actionLog, ourAppId, workflowRunAsChecks: true, ...(settles !== undefined && { settlesComment: settles }) });
  await runs.idle();
}

export const MISSING_STATE_SECRET =
  'baton needs the repository secret `BATON_STATE_SECRET` (any random string, for example from `openssl rand -hex 32`) passed as `state-secret` to its `run` and `apply` steps, as `baton init --mode actions` writes them: it signs the run state kept in baton\'s status comments, which any workflow of this repository could otherwise forge.';

function threadOf(payload: Record<string, unknown>): number | undefined {
  const n = (payload.issue as { number?: unknown } | undefined)?.number ?? (payload.pull_request as { number?: unknown } | undefined)?.number;
  return typeof n === 'number' ? n : undefined;
}

export function apiUrl(): string {
  return process.env.GITHUB_API_URL || 'https://api.github.com';
}
