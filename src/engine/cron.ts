// GitHub Actions' cron syntax, read the way GitHub documents it (pure: no clock, no I/O).
// https://docs.github.com/en/actions/writing-workflows/choosing-when-your-workflow-runs/events-that-trigger-workflows#schedule
// "You can schedule a workflow to run at specific UTC times using POSIX cron syntax": five
// fields (minute 0–59, hour 0–23, day of month 1–31, month 1–12 or JAN–DEC, day of week 0–6 or
// SUN–SAT), each `*`, a value, a range `a-b`, a step `/n` (after `*`, a range, or a value — `3/5`
// is "from 3 on, every 5", which GitHub accepts), or a comma list of these. Nothing else: no
// seconds or year field, no `@daily`-style macros, no `?`, `L`, `W` or `#` (Quartz's).
// "The shortest interval you can run scheduled workflows is once every 5 minutes."
// Day of month and day of week combine as POSIX and Vixie cron do: when both are restricted a
// day matching either counts; a field written from `*` (`*`, `*/2`) counts as unrestricted.

export interface Cron {
  /** The text as written (trimmed): what GitHub hands a schedule event as `payload.schedule`. */
  text: string;
  minutes: readonly boolean[];
  hours: readonly boolean[];
  days: readonly boolean[];
  months: readonly boolean[];
  weekdays: readonly boolean[];
  /** The field was written from `*`: it does not restrict the day (the OR rule above). */
  anyDay: boolean;
  anyWeekday: boolean;
}

export type CronParse = { ok: true; cron: Cron } | { ok: false; error: string };

/** GitHub's floor between two ticks of one schedule. */
export const SHORTEST_INTERVAL_MINUTES = 5;

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  label: string;
  min: number;
  max: number;
  /** Names standing for min, min + 1, … (JAN = 1, SUN = 0). */
  names?: string[];
  hint: string;
}

const FIELDS: FieldSpec[] = [
  { label: 'minute', min: 0, max: 59, hint: '0-59' },
  { label: 'hour', min: 0, max: 23, hint: '0-23' },
  { label: 'day of month', min: 1, max: 31, hint: '1-31' },
  { label: 'month', min: 1, max: 12, names: MONTHS, hint: '1-12 or JAN-DEC' },
  { label: 'day of week', min: 0, max: 6, names: WEEKDAYS, hint: '0-6 or SUN-SAT' },
];

function value(text: string, f: FieldSpec): number | string {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= f.min && n <= f.max ? n : `${text} is out of range (${f.hint})`;
  }
  const i = f.names?.indexOf(text.toUpperCase()) ?? -1;
  if (i >= 0) return f.min + i;
  return `${JSON.stringify(text)} is not a value (${f.hint})`;
}

function field(text: string, f: FieldSpec): boolean[] | string {
  const set = new Array<boolean>(f.max + 1).fill(false);
  for (const item of text.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(item);
    if (!m) return `${JSON.stringify(item)} is not a value, range or step`;
    const [, range, stepText] = m;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) return `step ${JSON.stringify(stepText)} must be at least 1`;
    let lo: number;
    let hi: number;
    if (range === '*') [lo, hi] = [f.min, f.max];
    else {
      const ends = range!.split('-');
      if (ends.length > 2) return `${JSON.stringify(range)} is not a range`;
      const a = value(ends[0]!, f);
      if (typeof a === 'string') return a;
      const b = ends.length === 2 ? value(ends[1]!, f) : stepText === undefined ? a : f.max;
      if (typeof b === 'string') return b;
      if (b < a) return `range ${JSON.stringify(range)} runs backwards`;
      [lo, hi] = [a, b];
    }
    for (let v = lo; v <= hi; v += step) set[v] = true;
  }
  return set;
}

/** Reads one cron expression; the error names the field and what is wrong with it. */
export function parseCron(input: string): CronParse {
  const text = input.trim();
  if (text.startsWith('@')) return { ok: false, error: `${JSON.stringify(text)}: GitHub's cron takes five fields, not a macro like @daily (write e.g. "0 0 * * *")` };
  const parts = text.split(/\s+/);
  if (parts.length !== 5) return { ok: false, error: `${JSON.stringify(text)} has ${parts.length} field${parts.length === 1 ? '' : 's'}; GitHub's cron has five: minute hour day-of-month month day-of-week (no seconds or year)` };
  const sets: boolean[][] = [];
  for (const [i, part] of parts.entries()) {
    const got = field(part, FIELDS[i]!);
    if (typeof got === 'string') return { ok: false, error: `${JSON.stringify(text)}: ${FIELDS[i]!.label} field: ${got}` };
    sets.push(got);
  }
  const [minutes, hours, days, months, weekdays] = sets as [boolean[], boolean[], boolean[], boolean[], boolean[]];
  const cron: Cron = { text, minutes, hours, days, months, weekdays, anyDay: parts[2]!.startsWith('*'), anyWeekday: parts[4]!.startsWith('*') };
  if (!happens(cron)) return { ok: false, error: `${JSON.stringify(text)} never happens: no month it names has the days of month it names` };
  return { ok: true, cron };
}

/** Days in each month at most (February: 29). */
const LONGEST_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Some day matches: with the OR rule a restricted day of week always does; alone, day of month must fit a month. */
function happens(c: Cron): boolean {
  if (!c.anyDay && !c.anyWeekday) return true;
  if (c.anyDay) return true;
  return c.months.some((on, m) => on && c.days.some((d, day) => d && day <= LONGEST_MONTH[m]!));
}

function dayMatches(c: Cron, date: Date): boolean {
  if (!c.months[date.getUTCMonth() + 1]) return false;
  const dom = c.days[date.getUTCDate()]!;
  const dow = c.weekdays[date.getUTCDay()]!;
  if (!c.anyDay && !c.anyWeekday) return dom || dow;
  return dom && dow;
}

/** The largest index ≤ limit that is set, or -1. */
function lastAtOrBelow(set: readonly boolean[], limit: number): number {
  for (let i = Math.min(limit, set.length - 1); i >= 0; i--) if (set[i]) return i;
  return -1;
}

const DAY_MS = 86_400_000;
/** How far back a tick is looked for: a schedule on February 29 ticks every 4 years (8 across 2100). */
const LOOKBACK_DAYS = 9 * 366;

/** The most recent tick at or before `at` (epoch ms, UTC), or null when none within nine years. */
export function latestTick(cron: Cron, at: number): number | null {
  const minuteStart = Math.floor(at / 60_000) * 60_000;
  const first = new Date(minuteStart);
  let dayStart = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
  for (let back = 0; back <= LOOKBACK_DAYS; back++, dayStart -= DAY_MS) {
    const day = new Date(dayStart);
    if (!dayMatches(cron, day)) continue;
    const limitHour = back === 0 ? first.getUTCHours() : 23;
    const limitMinute = back === 0 ? first.getUTCMinutes() : 59;
    for (let h = lastAtOrBelow(cron.hours, limitHour); h >= 0; h = lastAtOrBelow(cron.hours, h - 1)) {
      const m = lastAtOrBelow(cron.minutes, h === limitHour ? limitMinute : 59);
      if (m >= 0) return dayStart + h * 3_600_000 + m * 60_000;
    }
  }
  return null;
}

/**
 * The shortest time between two ticks in minutes, over the times of one day and from a day's
 * last to the next day's first (taken as consecutive days: the strictest case).
 */
export function shortestInterval(cron: Cron): number {
  const times: number[] = [];
  cron.hours.forEach((h, hour) => h && cron.minutes.forEach((m, minute) => m && times.push(hour * 60 + minute)));
  let shortest = times[0]! + 1440 - times[times.length - 1]!;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  return shortest;
}

/** What is wrong with a schedule's cron for GitHub (bad syntax, more often than every 5 minutes), or null. */
export function cronProblem(text: string): string | null {
  const got = parseCron(text);
  if (!got.ok) return got.error;
  const every = shortestInterval(got.cron);
  if (every < SHORTEST_INTERVAL_MINUTES) {
    return `${JSON.stringify(got.cron.text)} ticks ${every} minute${every === 1 ? '' : 's'} apart; GitHub runs a schedule at most once every ${SHORTEST_INTERVAL_MINUTES} minutes`;
  }
  return null;
}

/**
 * The ticks after `after` and at or before `upTo` (epoch ms), oldest first, and whether there
 * were more than `limit` (then only the latest `limit` are listed). Used to name the ticks a
 * schedule missed and to count the ticks it should have had in a window (`baton doctor`).
 */
export function ticksBetween(cron: Cron, after: number, upTo: number, limit: number): { ticks: number[]; more: boolean } {
  const ticks: number[] = [];
  for (let t = latestTick(cron, upTo); t !== null && t > after; t = latestTick(cron, t - 60_000)) {
    if (ticks.length === limit) return { ticks: ticks.reverse(), more: true };
    ticks.push(t);
  }
  return { ticks: ticks.reverse(), more: false };
}

/** `YYYYMMDDTHHMMZ`: a tick as it can stand in a ref name (no `:`). */
export function tickName(tick: number): string {
  return new Date(tick).toISOString().replace(/[-:]/g, '').replace(/\d\d\.\d{3}Z$/, 'Z');
}

/** The one spelling of a cron that two writings of it share (whitespace collapsed). */
export function cronText(text: string): string {
  return text.trim().split(/\s+/).join(' ');
}

/** The tick a `tickName` names (epoch ms), or null for anything else. */
export function tickOfName(name: string): number | null {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)Z$/.exec(name);
  if (!m) return null;
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  return tickName(at) === name ? at : null;
}
