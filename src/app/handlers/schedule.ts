// `on.schedule`: at each tick of a workflow's cron, one run on the workflow's tracking issue.
// Called with a moment (`at`), not by a timer of its own: the App's sweep calls it for every
// repository each sweep, Actions-only mode on a `schedule` event (with that event's cron).
//
// Each tick starts a run once, however many processes look and however late: the first to
// create the ref `refs/baton/schedule/<workflow>/<cron key>/<tick>` starts it (creating a ref is
// create-if-absent on GitHub: "Reference already exists" tells the others), then deletes the
// ref of the tick before, so a schedule keeps one ref. Only the latest tick at or before `at`
// is ever looked at: ticks missed while nothing looked (the App down, GitHub's schedule late or
// dropped) make one run, not one each, and are said on the tracking issue, once, by the process
// that claimed the tick that saw them (hosts/github/skip-notices.ts). A tick claimed whose run
// GitHub then refused is said there too. A schedule baton sees for the first time in App mode starts at
// its next tick, as GitHub's own schedules do (its ref is made without a run); a schedule event
// in Actions-only mode is GitHub saying a tick came, so it runs.
import { cronKey, SCHEDULE_PREFIX } from '../../hosts/github/schedule-claims.ts';
import { quietMentions } from '../../engine/mentions.ts';
import { cronText, latestTick, parseCron, tickName, tickOfName, ticksBetween, type Cron } from '../../engine/cron.ts';
import type { Workflow } from '../../manifest/types.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { createRef, deleteRef, refsUnder } from '../../hosts/github/git-refs.ts';
import { defaultBranchHead, loadManifests } from '../../hosts/github/manifests.ts';
import type { Log, RunService } from '../runs.ts';
import { startRun } from './start.ts';
import { onTrackingIssue, trackingIssueFor, type Tracking } from './tracking-issue.ts';
import { sayTickSkipped, type TickSkip } from '../../hosts/github/skip-notices.ts';
import { messageOf, statusOf } from '../../hosts/github/client.ts';

export { cronKey, SCHEDULE_PREFIX };

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
  /** Ticks found missed, as `<workflow> <count>` (said on the tracking issue). */
  missed: string[];
}


export async function startScheduledRuns(runs: RunService, gh: RepoContext, when: ScheduleWhen, log: Log): Promise<ScheduleReport> {
  const report: ScheduleReport = { started: [], firstSeen: [], missed: [] };
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
  const tracking = trackingOf(due.workflow);
  const skip = { workflow: due.workflow.name, cron: due.text, cronKey: cronKey(due.text), seenAt: at };
  const missed = missedTicks(parsed.cron, earlier, due.prefix, at);
  try {
    // The tracking issue continues on a new one when full, or when GitHub refuses the run's comment (tracking-issue.ts).
    await onTrackingIssue(gh, tracking, async (thread) => {
      if (missed.ticks.length) {
        report.missed.push(`${due.workflow.name} ${missed.ticks.length}${missed.more ? '+' : ''}`);
        await sayTickSkipped(gh, thread.number, { ...skip, ...missed, reason: missedReason(due.event), next: `This run is for the tick at ${new Date(at).toISOString().slice(0, 16).replace('T', ' ')}: ticks missed in a row make one run, not one each.` });
      }
      await startRun(
        runs,
        gh,
        { workflow: due.workflow, hash: due.hash, manifestCommit: due.sha, thread, actor: SCHEDULE_ACTOR, actorIsBot: false, inputs: {}, key: `schedule:${cronKey(due.text)}:${tickName(at)}`, trigger: 'schedule' },
        log,
      );
    });
  } catch (err) {
    // GitHub refused something the tick's run needed (its tracking issue, its branch, its
    // record…): the claim is taken, so no later look runs this tick; it is said where the
    // schedule's runs are, or, when GitHub refuses that too, in the log (and `baton doctor`).
    await refusedTick(gh, tracking, { ...skip, ticks: [at], reason: `GitHub refused what its run needed: ${quietMentions(refusalText(err))}.`, next: 'The next tick starts a run as usual; if GitHub refuses the same again, fix what it names (the App\'s permissions, issues turned off, a branch rule).' }, log);
    throw err;
  }
  report.started.push(name);
}

/** The ticks between the last claimed one and `at`, neither counted: the ones nobody looked at. */
function missedTicks(cron: Cron, earlier: Array<{ ref: string }>, prefix: string, at: number): { ticks: number[]; more: boolean } {
  const seen = earlier.map((c) => tickOfName(c.ref.slice(prefix.length))).filter((t): t is number => t !== null && t < at);
  if (!seen.length) return { ticks: [], more: false };
  return ticksBetween(cron, Math.max(...seen), at - 60_000, MISSED_LISTED);
}

/** Ticks of one gap counted at most (a schedule every 5 minutes misses 2,016 in a week): the latest ones, and "more than". */
const MISSED_LISTED = 2000;

/** Why ticks were missed: in Actions-only mode GitHub's scheduler sends each tick; in App mode baton's sweep looks for it. */
function missedReason(event: boolean): string {
  return event
    ? "No schedule event came for these ticks: GitHub's scheduler delays and drops scheduled runs when it is busy, and turns schedules off in a repository without activity for 60 days (the Actions tab shows it); `baton.yml` may also have been turned off or lacked this cron (`baton update` writes it)."
    : "baton was not looking when these ticks came: the App was down, or could not reach GitHub, for longer than the time between two ticks.";
}

/** GitHub's answer in one short line (it may quote names from the repository: the notice makes its mentions quiet). */
function refusalText(err: unknown): string {
  const status = statusOf(err);
  return `${status ? `${status} ` : ''}${messageOf(err)}`.replace(/\s+/g, ' ').slice(0, 300);
}

/** Says a refused tick on the tracking issue; a refusal of that too goes to the log only. */
async function refusedTick(gh: RepoContext, tracking: Tracking, skip: TickSkip, log: Log): Promise<void> {
  try {
    const { thread } = await trackingIssueFor(gh, tracking);
    await sayTickSkipped(gh, thread.number, skip);
  } catch (err) {
    log.warn(`schedule of \`${skip.workflow}\`: could not say on GitHub that tick ${tickName(skip.seenAt)} did not run: ${refusalText(err)}`);
  }
}

/** A schedule's tracking issue: where its runs and its skipped ticks are. */
export function trackingOf(wf: Workflow): Tracking {
  return { marker: `baton:schedule ${wf.name}`, title: `baton: ${wf.name} (scheduled)`, text: issueText(wf) };
}

function issueText(wf: Workflow): string {
  const crons = (wf.on.schedule ?? []).map((s) => `\`${cronText(s.cron)}\``).join(', ');
  return [
    `baton runs the workflow \`${wf.name}\` here on its schedule (${crons}, UTC). Each run's status comment below says what it did.`,
    '',
    `Ticks missed while nothing was looking (baton down, GitHub's schedule late or dropped) start one run, not one per tick, and a comment here names them. A tick that started no run for another reason (\`budget.per-day\`, a refusal from GitHub) is said here too. \`baton doctor --github OWNER/REPO\` lists the schedules that did not run.`,
    '',
    `To stop these runs, remove \`on.schedule\` from the workflow's manifest in \`.agents/workflows/\` on the default branch. Closing this issue does not stop them: baton opens a new one at the next tick.`,
  ].join('\n');
}
