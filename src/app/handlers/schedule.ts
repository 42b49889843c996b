// `on.schedule`: at each tick of a workflow's cron, one run on the workflow's tracking issue.
// Called with a moment (`at`), not by a timer of its own: the App's sweep calls it for every
// repository each sweep, Actions-only mode on a `schedule` event (with that event's cron).
//
// Each tick starts a run once, however many processes look and however late: the first to
// create the ref `refs/baton/schedule/<workflow>/<cron key>/<tick>` starts it (creating a ref is
// create-if-absent on GitHub: "Reference already exists" tells the others), then deletes the
// ref of the tick before, so a schedule keeps one ref. Only the latest tick at or before `at`
// is ever looked at: ticks missed while nothing looked (the App down, GitHub's schedule late)
// make one run, not one each. A schedule baton sees for the first time in App mode starts at
// its next tick, as GitHub's own schedules do (its ref is made without a run); a schedule event
// in Actions-only mode is GitHub saying a tick came, so it runs.
import { createHash } from 'node:crypto';
import { cronText, latestTick, parseCron, tickName } from '../../engine/cron.ts';
import type { Workflow } from '../../manifest/types.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { createRef, deleteRef, refsUnder } from '../../hosts/github/git-refs.ts';
import { defaultBranchHead, loadManifests } from '../../hosts/github/manifests.ts';
import type { Log, RunService } from '../runs.ts';
import { startRun } from './start.ts';
import { onTrackingIssue } from './tracking-issue.ts';

/** Refs under this prefix are the schedules' claims; no branch or tag, so no workflow runs on them. */
export const SCHEDULE_PREFIX = 'refs/baton/schedule/';

/** Who starts a scheduled run: the manifest, named so in the run's record. */
export const SCHEDULE_ACTOR = 'schedule';

export interface ScheduleWhen {
  /** The moment looked at (epoch ms). */
  at: number;
  /** Only these crons (Actions-only: the schedule event's `payload.schedule`); absent: every one. */
  crons?: string[];
}

export interface ScheduleReport {
  /** Runs started, as `<workflow> <tick>`. */
  started: string[];
  /** Schedules seen for the first time: their tick is claimed, the first run comes at the next one. */
  firstSeen: string[];
}

/** A cron's part of its claim refs: short, ref-safe, the same for every spelling of the same fields. */
export function cronKey(cron: string): string {
  return createHash('sha256').update(cronText(cron)).digest('hex').slice(0, 12);
}

export async function startScheduledRuns(runs: RunService, gh: RepoContext, when: ScheduleWhen, log: Log): Promise<ScheduleReport> {
  const report: ScheduleReport = { started: [], firstSeen: [] };
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const scheduled = set.files.flatMap((f) => (f.loaded?.workflow.on.schedule ? [f.loaded] : []));
  const wanted = when.crons?.map(cronText);
  // No schedule, no further request (the sweep calls this for every repository).
  if (!scheduled.length) return report;
  const claims = await refsUnder(gh, SCHEDULE_PREFIX.slice('refs/'.length));
  const live: string[] = [];
  for (const { workflow, hash } of scheduled) {
    for (const entry of workflow.on.schedule!) {
      const text = cronText(entry.cron);
      const prefix = `${SCHEDULE_PREFIX}${workflow.name}/${cronKey(text)}/`;
      live.push(prefix);
      if (wanted && !wanted.includes(text)) continue;
      try {
        await tick(runs, gh, { workflow, hash, sha, text, prefix, at: when.at, event: wanted !== undefined }, claims, report, log);
      } catch (err) {
        log.warn(`schedule ${JSON.stringify(text)} of \`${workflow.name}\` in ${gh.owner}/${gh.repo} failed: ${(err as Error).message}`);
      }
    }
  }
  // The claims of schedules no manifest has any more (looked at only when every schedule was).
  if (!wanted) for (const c of claims) if (!live.some((p) => c.ref.startsWith(p))) await deleteRef(gh, c.ref);
  return report;
}

interface Due {
  workflow: Workflow;
  hash: string;
  sha: string;
  text: string;
  prefix: string;
  at: number;
  /** A schedule event said the tick came (Actions-only): a first sight runs too. */
  event: boolean;
}

async function tick(runs: RunService, gh: RepoContext, due: Due, claims: Array<{ ref: string }>, report: ScheduleReport, log: Log): Promise<void> {
  const parsed = parseCron(due.text);
  if (!parsed.ok) return; // the manifest would not have loaded (semantic.ts)
  const at = latestTick(parsed.cron, due.at);
  if (at === null) return;
  const ref = `${due.prefix}${tickName(at)}`;
  const earlier = claims.filter((c) => c.ref.startsWith(due.prefix));
  if (earlier.some((c) => c.ref === ref)) return;
  const made = await createRef(gh, ref, due.sha);
  // Another process has this tick. (After an unanswered try the ref may be this process's own,
  // but every process points it at the same commit: a tick is skipped rather than run twice.)
  if (!made.created) {
    if (made.unanswered) log.warn(`schedule of \`${due.workflow.name}\`: the claim of tick ${tickName(at)} went unanswered and then existed; if no run started at that tick, the next tick starts one`);
    return;
  }
  for (const c of earlier) await deleteRef(gh, c.ref);
  const name = `${due.workflow.name} ${new Date(at).toISOString()}`;
  if (earlier.length === 0 && !due.event) {
    log.info(`schedule ${JSON.stringify(due.text)} of \`${due.workflow.name}\` seen for the first time: its first run comes at its next tick`);
    report.firstSeen.push(name);
    return;
  }
  // The tracking issue continues on a new one when full, or when GitHub refuses the run's comment (tracking-issue.ts).
  const tracking = { marker: `baton:schedule ${due.workflow.name}`, title: `baton: ${due.workflow.name} (scheduled)`, text: issueText(due.workflow) };
  await onTrackingIssue(gh, tracking, (thread) =>
    startRun(
      runs,
      gh,
      { workflow: due.workflow, hash: due.hash, manifestCommit: due.sha, thread, actor: SCHEDULE_ACTOR, actorIsBot: false, inputs: {}, key: `schedule:${cronKey(due.text)}:${tickName(at)}`, trigger: 'schedule' },
      log,
    ),
  );
  report.started.push(name);
}

function issueText(wf: Workflow): string {
  const crons = (wf.on.schedule ?? []).map((s) => `\`${cronText(s.cron)}\``).join(', ');
  return [
    `baton runs the workflow \`${wf.name}\` here on its schedule (${crons}, UTC). Each run's status comment below says what it did.`,
    '',
    `A tick missed while nothing was looking (baton down, GitHub's schedule late) starts one run, not one per tick.`,
    '',
    `To stop these runs, remove \`on.schedule\` from the workflow's manifest in \`.agents/workflows/\` on the default branch. Closing this issue does not stop them: baton opens a new one at the next tick.`,
  ].join('\n');
}
