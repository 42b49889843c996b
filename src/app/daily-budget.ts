// `budget.per-day` at the door every start passes (handlers/start.ts: labels, commands, and
// runs started by events and schedules), and in `/baton status`. A workflow without it costs
// nothing here: no read. With it, the day's runs are read from GitHub (hosts/github/daily-spend.ts)
// before each start; when a cap is reached no run starts, and the refusal costs at most one
// note per workflow and day for starts nobody asked for, and one reply per thread and day for a
// person who asked.
import { dailyCapReached, describeSpend, spendOfDay, utcDay, type PerDay } from '../engine/daily-budget.ts';
import type { Role } from '../manifest/types.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { DAY_READ_MAX_PAGES, readDay, type DayRead } from '../hosts/github/daily-spend.ts';
import { defaultBranchHead, loadManifests, validWorkflows } from '../hosts/github/manifests.ts';
import { standingOf, written } from '../hosts/github/stranger-door.ts';
import type { StartRequest } from './handlers/start.ts';
import { KeyedQueue } from './queue.ts';
import { replyOnce } from './replies.ts';
import type { Log, RunService } from './runs.ts';

/**
 * One check-and-start at a time per workflow in a process: a start is counted once its record
 * is on GitHub, so two starts checked side by side would both see room for one more. Across
 * processes (replicas, parallel Actions jobs) nothing serialises them: see docs/operations.md.
 */
const queues = new WeakMap<RunService, KeyedQueue>();

const UNCOUNTED = `more comments were written or edited in this repository today than baton reads to count the day's runs (${DAY_READ_MAX_PAGES * 100})`;

/**
 * Runs `start` when the workflow's daily caps allow one more run on the UTC day of `at` (the
 * run's own `at`, so the day checked is the day its `startedAt` will say); otherwise starts
 * nothing and says so once. A day that cannot be counted refuses (a cap that cannot be checked
 * is not one that allows).
 */
export async function withinDailyBudget(runs: RunService, gh: RepoContext, req: StartRequest, permission: Role | 'none', at: number, log: Log, start: () => Promise<unknown>): Promise<void> {
  const perDay = req.workflow.budget.perDay;
  if (perDay === undefined) {
    await start();
    return;
  }
  let queue = queues.get(runs);
  if (!queue) queues.set(runs, (queue = new KeyedQueue()));
  await queue.run(`${gh.owner}/${gh.repo}:${req.workflow.name}`.toLowerCase(), async () => {
    const day = await readDay(gh, at);
    // This start was made already (a redelivery, or the same delivery on another replica): no new
    // run, so no cap applies; the start path reconciles the run it made.
    if (day.runs.some((r) => r.appliedKeys.includes(req.key))) return start();
    const reached = day.complete ? dailyCapReached(perDay, spendOfDay(day.runs, req.workflow.name, at)) : UNCOUNTED;
    if (reached === null) return start();
    log.info(`refused a start of \`${req.workflow.name}\` on #${req.thread.number}: budget.per-day (${reached})`);
    return refuse(gh, req, permission, at, reached, day, log);
  });
}

/**
 * The note: on the thread of the first refused start of the day; its marker, found by the
 * day's read anywhere in the repository, keeps later automatic starts silent (no write at
 * all). A person who asks is answered in their thread, once per thread and day, through the
 * reply door (they have the workflow's role: anyone else was refused before this).
 */
async function refuse(gh: RepoContext, req: StartRequest, permission: Role | 'none', at: number, reached: string, day: DayRead, log: Log): Promise<void> {
  const name = req.workflow.name;
  const key = `budget/${name}/${utcDay(at)}`;
  const text = day.complete
    ? `\`${name}\` has reached its daily budget: ${reached} (UTC day ${utcDay(at)}). No run was started. Runs of \`${name}\` start again after 00:00 UTC, or once \`budget.per-day\` of the workflow is raised on the default branch; until then, starts by events and schedules are refused without another note, and a person who asks is told once per issue or pull request.`
    : `baton could not count today's runs of \`${name}\`: ${reached}. Its \`budget.per-day\` cannot be checked, so no run was started (UTC day ${utcDay(at)}).`;
  if (req.trigger === undefined) {
    await replyOnce(gh, req.thread.number, key, `@${req.actor}, ${text}`, standingOf(req.actor, permission, req.workflow.on.roles, req.workflow.on.bots));
    return;
  }
  // Not found in a day that could not be read whole is no proof it was not posted: silence (the log says why).
  if (!day.complete) {
    log.warn(`${name}: ${text}`);
    return;
  }
  if (written(day.markers, key)) return;
  await replyOnce(gh, req.thread.number, key, text);
}

/** `/baton status`'s part: the day's spend of each workflow with `budget.per-day` ('' when none has one: nothing more is read). */
export async function dailySpendText(gh: RepoContext, at: number): Promise<string> {
  const budgeted = validWorkflows(await loadManifests(gh, await defaultBranchHead(gh))).filter((w): w is typeof w & { budget: { perDay: PerDay } } => w.budget.perDay !== undefined);
  if (budgeted.length === 0) return '';
  const day = await readDay(gh, at);
  const lines = budgeted.map((w) => `- ${day.complete ? describeSpend(w.name, w.budget.perDay, spendOfDay(day.runs, w.name, at)) : `\`${w.name}\` today: not counted, ${UNCOUNTED}; its starts are refused`}`);
  return `\n\n**Daily budgets** (UTC day ${utcDay(at)})\n${lines.join('\n')}`;
}
