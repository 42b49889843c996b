// The schedules' claim refs, `refs/baton/schedule/<workflow>/<cron key>/<tick>`: written by the
// process that takes a tick (app/handlers/schedule.ts), one per schedule (each tick's replaces the
// one before), and read by `baton doctor` to find the schedules that should have run and did not.
//
// Why the doctor reads these and not the runs' records: one listing of refs answers for every
// schedule of the repository, where the records are status comments on tracking issues (up to
// 2,000 each, 100 a page, signed with a key a person's terminal seldom holds), and run branches
// are deleted when a run ends. A claim is taken before its tick's run starts, so a tick taken is
// a tick baton looked at; one whose run was then refused (`budget.per-day`, GitHub) was said on
// the tracking issue at the time (skip-notices.ts, app/daily-budget.ts). Only ticks after the
// last claim are unknown to baton, and those are what the doctor lists.
import { createHash } from 'node:crypto';
import { cronText, parseCron, tickOfName, ticksBetween } from '../../engine/cron.ts';
import type { Workflow } from '../../manifest/types.ts';

/** Refs under this prefix are the schedules' claims; no branch or tag, so no workflow runs on them. */
export const SCHEDULE_PREFIX = 'refs/baton/schedule/';

/** A cron's part of its claim refs: short, ref-safe, the same for every spelling of the same fields. */
export function cronKey(cron: string): string {
  return createHash('sha256').update(cronText(cron)).digest('hex').slice(0, 12);
}

/**
 * How late a tick may be before the doctor counts it as not run: GitHub documents that "the
 * schedule event can be delayed during periods of high loads of GitHub Actions workflow runs"
 * (events-that-trigger-workflows#schedule), and delays of tens of minutes are common.
 */
export const LATE_GRACE_MS = 60 * 60_000;

/** Ticks of one schedule counted at most. */
const COUNTED = 10_000;

/** A schedule that should have run in the window and did not. */
export interface OverdueSchedule {
  workflow: string;
  cron: string;
  /** The last tick baton took (epoch ms), or null when it took none. */
  lastTaken: number | null;
  /** The ticks in the window after `lastTaken` (and before the grace), oldest first. */
  missed: number[];
  /** More than `missed` lists (the earliest are left out). */
  more: boolean;
}

/**
 * The schedules whose ticks in the window `[now - windowMs, now - LATE_GRACE_MS]` came after the
 * last tick baton took. `claims` is the listing of refs under SCHEDULE_PREFIX.
 */
export function overdueSchedules(workflows: readonly Workflow[], claims: ReadonlyArray<{ ref: string }>, now: number, windowMs: number): OverdueSchedule[] {
  const out: OverdueSchedule[] = [];
  for (const wf of workflows) {
    for (const entry of wf.on.schedule ?? []) {
      const text = cronText(entry.cron);
      const parsed = parseCron(text);
      if (!parsed.ok) continue; // the manifest would not have loaded
      const prefix = `${SCHEDULE_PREFIX}${wf.name}/${cronKey(text)}/`;
      const taken = claims.flatMap((c) => (c.ref.startsWith(prefix) ? [tickOfName(c.ref.slice(prefix.length))] : [])).filter((t): t is number => t !== null);
      const lastTaken = taken.length ? Math.max(...taken) : null;
      // Ticks after the last one taken, within the window (its first moment counted), not within the grace.
      const after = Math.max(lastTaken ?? -Infinity, now - windowMs - 1);
      const { ticks, more } = ticksBetween(parsed.cron, after, now - LATE_GRACE_MS, COUNTED);
      if (ticks.length) out.push({ workflow: wf.name, cron: text, lastTaken, missed: ticks, more });
    }
  }
  return out;
}
