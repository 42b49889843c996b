// Which lane and priority a write belongs to, carried from where an event's work starts to the
// one door every write passes (write-budget.ts), without touching any call site: the work runs
// inside an AsyncLocalStorage store (as event-time.ts times events), and the door reads the
// store of the request it is handed.
//
// A lane is a thread (`owner/repo#number`): a run is bound to the thread it lives in (its id
// names it), so an event not yet bound to a run (a label, a comment) and the run's later events
// (its worker's end, CI) share one lane — and a person's command on a thread lifts every write
// already waiting in that lane (the run's own earlier event, which the command waits behind in
// the run's queue) to the command's priority.
import { AsyncLocalStorage } from 'node:async_hooks';
import { parseRunId } from '../hosts/github/run-id.ts';

/**
 * Priority classes, highest first. `command`: a person's comment or review (`/baton cancel`, an
 * answer, `/baton status`), the only class that may spend the budget's reserve; `start`: a label
 * event's writes up to its run's first worker dispatch; `bookkeeping`: everything else.
 */
export type WriteClass = 'command' | 'start' | 'bookkeeping';

export const CLASS_RANK: Record<WriteClass, number> = { command: 2, start: 1, bookkeeping: 0 };

/** Told, once per wait, that a write of this lane has waited long for the budget (deferral-notice.ts). */
export type DeferralNotice = (estimateMs: number) => Promise<void>;

export interface LaneContext {
  lane: string;
  cls: WriteClass;
  /** When the event's work started (performance.now()): starts are served oldest first. */
  since: number;
  /** A start event has had its run's first dispatch through the door: its later writes are bookkeeping. */
  dispatched: boolean;
  /** How to tell the lane's run that it waits, once its record is known (runs.ts). */
  notice?: DeferralNotice;
}

const current = new AsyncLocalStorage<LaneContext>();

/** Lanes a person's command is waiting in right now, with how many such commands. */
const boosted = new Map<string, number>();

/** The lane of a thread. */
export function threadLane(owner: string, repo: string, number: number): string {
  return `${owner}/${repo}#${number}`.toLowerCase();
}

/** Runs an event's work in `lane` with priority `cls` (app.ts, where each delivery's work starts). */
export function inLane<T>(lane: string, cls: WriteClass, work: () => Promise<T>): Promise<T> {
  return enter({ lane, cls, since: performance.now(), dispatched: false }, work);
}

/**
 * Runs work on a run inside the run's lane (runs.ts): an event with no thread of its own (a
 * worker's end, CI, the sweep) is put in its run's thread; the priority is the event's.
 */
export function inRunLane<T>(owner: string, repo: string, runId: string, work: () => Promise<T>): Promise<T> {
  const thread = parseRunId(runId)?.thread;
  const outer = current.getStore();
  if (thread === undefined || !outer) return work();
  const lane = threadLane(owner, repo, thread);
  if (lane === outer.lane) return work();
  return enter({ ...outer, lane, notice: undefined }, work);
}

function enter<T>(ctx: LaneContext, work: () => Promise<T>): Promise<T> {
  if (ctx.cls !== 'command') return current.run(ctx, work);
  boosted.set(ctx.lane, (boosted.get(ctx.lane) ?? 0) + 1);
  return current.run(ctx, work).finally(() => {
    const n = (boosted.get(ctx.lane) ?? 1) - 1;
    if (n > 0) boosted.set(ctx.lane, n);
    else boosted.delete(ctx.lane);
  });
}

/** The lane of the work under way; undefined outside any event (the App's start-up). */
export function currentLane(): LaneContext | undefined {
  return current.getStore();
}

/** Runs `work` as a person's command would (the deferral notice spends the reserve). */
export function asCommand<T>(ctx: LaneContext | undefined, work: () => Promise<T>): Promise<T> {
  return current.run({ lane: ctx?.lane ?? 'notice', cls: 'command', since: performance.now(), dispatched: false }, work);
}

/** The class a waiting write of `ctx` is served in now: a command waiting in its lane lifts it. */
export function classOf(ctx: LaneContext | undefined): WriteClass {
  if (!ctx) return 'bookkeeping';
  if (boosted.has(ctx.lane)) return 'command';
  if (ctx.cls === 'start' && ctx.dispatched) return 'bookkeeping';
  return ctx.cls;
}

/** Registers how the lane's run says it is waiting (runs.ts, once the run's record is loaded). */
export function whenDeferred(notice: DeferralNotice): void {
  const ctx = current.getStore();
  if (ctx) ctx.notice = notice;
}

type Actor = { login?: string; type?: string } | null | undefined;
const isBot = (u: Actor): boolean => u?.type === 'Bot' || (u?.login ?? '').endsWith('[bot]');

/**
 * The lane and priority of a delivery's work: a person's comment or review is a command; a label
 * starts a run; the rest (a worker's end, CI, a closed pull request, the App's own comments) is
 * bookkeeping. Events naming no thread get their run's lane once they reach it (runs.ts).
 */
export function laneOfEvent(name: string, payload: any, deliveryId: string): { lane: string; cls: WriteClass } {
  const owner = String(payload?.repository?.owner?.login ?? '');
  const repo = String(payload?.repository?.name ?? '');
  const action = payload?.action;
  if (name === 'issue_comment' && typeof payload?.issue?.number === 'number') {
    return { lane: threadLane(owner, repo, payload.issue.number), cls: isBot(payload.comment?.user) ? 'bookkeeping' : 'command' };
  }
  if (name === 'pull_request_review' && typeof payload?.pull_request?.number === 'number') {
    return { lane: threadLane(owner, repo, payload.pull_request.number), cls: isBot(payload.review?.user) ? 'bookkeeping' : 'command' };
  }
  const item = payload?.issue ?? payload?.pull_request;
  if (typeof item?.number === 'number') return { lane: threadLane(owner, repo, item.number), cls: action === 'labeled' ? 'start' : 'bookkeeping' };
  return { lane: `delivery:${deliveryId}`, cls: 'bookkeeping' };
}
