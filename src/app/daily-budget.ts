// `budget.per-day` at the door every start passes (handlers/start.ts: labels, commands, and
// runs started by events and schedules), and in `/baton status`. A workflow without it costs
// nothing here: no read. With it, the workflow's ledger of the day is read before each start
// (one listing of refs only baton writes: hosts/github/daily-spend.ts), in the pool the start
// spends from (engine/daily-budget.ts: runs people with the workflow's role asked for, and runs
// events and schedules started, each held to the caps on its own — strangers' issues and pushes
// never use up what a maintainer's command starts from). A start let through is written into
// the ledger before its run is made. When a cap is reached no run starts, and the refusal costs
// at most one note per workflow and day for starts of schedules and of people without the
// workflow's role, and one note per thread and day for the events and asks of people with it.
import { dailyCapReached, describeSpend, POOLS, poolOf, spendOfDay, utcDay, type PerDay } from '../engine/daily-budget.ts';
import type { RunState } from '../engine/index.ts';
import type { Role, Workflow } from '../manifest/types.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { claimNote, forgetStart, pruneDays, readDay, recordSpent, recordStart, startName, startRef } from '../hosts/github/daily-spend.ts';
import { defaultBranchHead, loadManifests, validWorkflows } from '../hosts/github/manifests.ts';
import { standingOf } from '../hosts/github/stranger-door.ts';
import type { StartRequest } from './handlers/start.ts';
import { KeyedQueue } from './queue.ts';
import { replyOnce } from './replies.ts';
import type { Log, RunService } from './runs.ts';

/**
 * One check-and-start at a time per workflow in a process: a start is counted once its ledger
 * ref is on GitHub, so two starts checked side by side would both see room for one more. Across
 * processes (replicas, parallel Actions jobs) nothing serialises them: see docs/operations.md.
 */
const queues = new WeakMap<RunService, KeyedQueue>();

/**
 * Runs `start` when the caps of the start's pool allow one more run on the UTC day of `at` (the
 * run's own `at`, so the day checked is the day its `startedAt` will say); otherwise starts
 * nothing and says so once. `start` answers the run it made, if any: a start that made none
 * (given way, refused by the engine) is taken back out of the ledger.
 */
export async function withinDailyBudget(runs: RunService, gh: RepoContext, req: StartRequest, permission: Role | 'none', at: number, log: Log, start: (dayCostLeftUsd?: number) => Promise<RunState | undefined>): Promise<void> {
  const perDay = req.workflow.budget.perDay;
  if (perDay === undefined) {
    await start();
    return;
  }
  let queue = queues.get(runs);
  if (!queue) queues.set(runs, (queue = new KeyedQueue()));
  await queue.run(`${gh.owner}/${gh.repo}:${req.workflow.name}`.toLowerCase(), async () => {
    const pool = poolOf(req.trigger);
    const day = await readDay(gh, at, req.workflow.name);
    const name = startName(req.thread.number, req.key);
    // This start was let through already (a redelivery, or the same delivery on another
    // replica): no new run, so no cap applies; the start path reconciles the run it made.
    if (day.starts[pool].has(name)) {
      await start();
      return;
    }
    const reached = dailyCapReached(perDay, spendOfDay(day, pool), pool);
    if (reached !== null) {
      log.info(`refused a start of \`${req.workflow.name}\` on #${req.thread.number}: budget.per-day (${reached})`);
      await refuse(gh, req, permission, at, reached, day.noted);
      return;
    }
    // The day's first start of the workflow clears the ledgers of days gone by.
    if (POOLS.every((p) => day.starts[p].size === 0)) {
      // Housekeeping: a refusal here must not refuse the start (the next day's first start tries again).
      await pruneDays(gh, at).catch((err: unknown) => log.warn(`could not clear the daily ledgers of days gone by: ${(err as Error).message}`));
    }
    const ref = startRef(at, req.workflow.name, pool, name);
    await recordStart(gh, ref, req.manifestCommit);
    // The run's attempts may spend what is left of the day's money in its pool (the proxy holds them to it).
    const run = await start(perDay.maxCostUsd === undefined ? undefined : Math.max(0, perDay.maxCostUsd - spendOfDay(day, pool).costUsd));
    if (!run || run.status === 'idle' || !run.appliedKeys.includes(req.key)) await forgetStart(gh, ref);
  });
}

/**
 * The note: on the thread of the first refused automatic start of the day (the ledger's `noted`
 * ref, made once however many processes refuse at once, keeps later ones silent: no write at
 * all). A person who asks is answered in their thread, once per thread and day, through the
 * reply door (they have the workflow's role: anyone else was refused before this).
 */
async function refuse(gh: RepoContext, req: StartRequest, permission: Role | 'none', at: number, reached: string, noted: boolean): Promise<void> {
  const name = req.workflow.name;
  const key = `budget/${name}/${utcDay(at)}`;
  const text = `\`${name}\` has reached its daily budget: ${reached} (UTC day ${utcDay(at)}). No run was started. Runs of \`${name}\` start again after 00:00 UTC, or once \`budget.per-day\` of the workflow is raised on the default branch; until then, starts by events and schedules are refused and said once a day (an event of someone with the workflow's role is said in its own thread), and a person who asks is told once per issue or pull request.`;
  const standing = standingOf(req.actor, permission, req.workflow.on.roles, req.workflow.on.bots);
  if (req.trigger === undefined) {
    await replyOnce(gh, req.thread.number, key, `@${req.actor}, ${text}`, standing);
    return;
  }
  // An event of someone with the workflow's role (a maintainer's issue, their pull request) is
  // told in its thread, once a day there: it is their work that waits. Strangers' events cost
  // the day's one note at most, whatever their number (a flood of issues writes nothing more).
  if (req.trigger !== 'schedule' && !standing.stranger) {
    await replyOnce(gh, req.thread.number, key, text, standing);
    return;
  }
  if (noted || !(await claimNote(gh, at, name, req.manifestCommit))) return;
  await replyOnce(gh, req.thread.number, key, text);
}

/**
 * A run that has just ended: what it cost goes into the ledger of the day it started, where the
 * next starts of its pool count it against `max-cost-usd` (runs.ts calls this before the
 * run's last record is written, so a record that says "ended" has its cost in the ledger).
 */
export async function recordRunSpend(gh: RepoContext, workflow: Workflow, state: RunState): Promise<void> {
  if (workflow.budget.perDay === undefined) return;
  try {
    await recordSpent(gh, state, poolOf(state.trigger));
  } catch {
    // GitHub refused the ref for good (its 5xx were tried again in createRef): the day then
    // counts this run without its money, rather than the run's end never being written.
  }
}

/** `/baton status`'s part: the day's spend of each workflow with `budget.per-day` ('' when none has one: nothing more is read). */
export async function dailySpendText(gh: RepoContext, at: number): Promise<string> {
  const budgeted = validWorkflows(await loadManifests(gh, await defaultBranchHead(gh))).filter((w): w is typeof w & { budget: { perDay: PerDay } } => w.budget.perDay !== undefined);
  if (budgeted.length === 0) return '';
  const lines = await Promise.all(
    budgeted.map(async (w) => {
      const day = await readDay(gh, at, w.name);
      return `- ${describeSpend(w.name, w.budget.perDay, { asked: spendOfDay(day, 'asked'), auto: spendOfDay(day, 'auto') })}`;
    }),
  );
  return `\n\n**Daily budgets** (UTC day ${utcDay(at)})\n${lines.join('\n')}`;
}
