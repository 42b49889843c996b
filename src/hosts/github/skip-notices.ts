// Skips said on GitHub: a schedule's tick that started no run, a start refused by
// `budget.per-day`, a waiting step whose deadline passed. Each is one comment with a marker,
// written where the people the workflow works for see it (the schedule's tracking issue, the
// thread of the run or of the refused start), and read back by `baton status` and
// `baton doctor`. The marker is the kind `reply` with a key that names the skip, so the
// thread's reader (thread.ts) finds it among baton's own comments and nothing anyone else
// writes counts.
import { tickName } from '../../engine/cron.ts';
import { DEADLINE_KEY_SUFFIX } from '../../engine/deadline-key.ts';
import type { RepoContext } from './client.ts';
import type { ThreadComment } from '../../record/find.ts';
import { markerOf, postOnce } from './thread.ts';

/** Marker keys of skip notices start with one of these. */
export const SKIP_KEY_PREFIX = 'skip/';
/** `budget.per-day`'s note (app/daily-budget.ts): a start refused by the day's budget. */
export const BUDGET_KEY_PREFIX = 'budget/';

/** A tick of a schedule that did not become a run. */
export interface TickSkip {
  workflow: string;
  /** The cron as written in the manifest (`cronText`). */
  cron: string;
  /** The cron's part of the claim refs (schedule.ts `cronKey`). */
  cronKey: string;
  /** The ticks that did not run (epoch ms), oldest first. */
  ticks: number[];
  /** More ticks than `ticks` lists were missed (the earliest are left out). */
  more?: boolean;
  /** The tick whose look found the skip: the notice's key, so it is said once. */
  seenAt: number;
  /** Why, in a sentence a maintainer acts on. */
  reason: string;
  /** What happens next (a run for `seenAt`, or nothing). */
  next: string;
}

const when = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');

/** The notice's text: which ticks, why, what next. */
export function tickSkipText(s: TickSkip): string {
  const n = s.ticks.length;
  const listed = n <= 6 ? s.ticks.map(when).join(', ') : `${when(s.ticks[0]!)} … ${when(s.ticks[n - 1]!)}`;
  const count = s.more ? `more than ${n} ticks` : `${n} tick${n === 1 ? '' : 's'}`;
  return `⚠️ **\`${s.workflow}\` did not run** at ${count} of its schedule \`${s.cron}\` (UTC): ${listed}.\n\n${s.reason}\n\n${s.next}`;
}

/** The marker key of a tick's notice. */
export function tickSkipKey(s: Pick<TickSkip, 'workflow' | 'cronKey' | 'seenAt'>): string {
  return `${SKIP_KEY_PREFIX}${s.workflow}/${s.cronKey}/${tickName(s.seenAt)}`;
}

/**
 * Says a skipped tick on the schedule's tracking issue. Once: only the process whose claim of
 * `seenAt` GitHub took (schedule.ts) ever calls this for it, so the thread is not read first
 * (a tracking issue holds up to 2,000 comments: 20 reads saved per notice); a redelivery, a
 * second replica or a re-run job finds the claim taken and says nothing.
 */
export async function sayTickSkipped(gh: RepoContext, issue: number, s: TickSkip): Promise<void> {
  await postOnce(gh, issue, `baton:reply ${tickSkipKey(s)}`, tickSkipText(s), new Set());
}

/** A notice of a skip as `baton status` shows it. */
export interface SaidSkip {
  /** `tick`: a schedule's tick; `budget`: a start refused by `budget.per-day`; `deadline`: a waiting step past its deadline. */
  kind: 'tick' | 'budget' | 'deadline';
  url: string;
  /** The notice's first line, as written (baton's own words). */
  text: string;
}

/** The skip notices among a thread's comments, oldest first: only baton's own, by their marker. */
export function saidSkips(comments: readonly ThreadComment[], botLogin: string): SaidSkip[] {
  const out: SaidSkip[] = [];
  for (const c of comments) {
    const key = markerOf(c, botLogin)?.replace(/^baton:reply /, '');
    if (key === undefined) continue;
    // A scheduled start the engine refused (its inputs) answers under the tick's event key, `schedule:<cron key>:<tick>/reply`.
    const kind = key.startsWith(SKIP_KEY_PREFIX) || key.startsWith('schedule:') ? 'tick' : key.startsWith(BUDGET_KEY_PREFIX) ? 'budget' : key.endsWith(DEADLINE_KEY_SUFFIX) ? 'deadline' : null;
    if (kind === null) continue;
    out.push({ kind, url: c.url ?? '', text: c.body.split('\n')[0]!.replace(/\*\*/g, '') });
  }
  return out;
}
