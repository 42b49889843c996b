// GitHub's cron as the schedule handler reads it: which ticks a schedule has, and which
// schedules a manifest may not have (bad syntax, more often than GitHub's 5 minutes), refused
// at the line that says them.
import { describe, expect, it } from 'vitest';
import { cronProblem, latestTick, parseCron, shortestInterval, tickName, tickOfName, ticksBetween, type Cron } from '../../src/engine/cron.ts';
import { loadWorkflowText } from '../../src/manifest/load.ts';

const cron = (text: string): Cron => {
  const got = parseCron(text);
  if (!got.ok) throw new Error(got.error);
  return got.cron;
};
const at = (iso: string) => Date.parse(iso);
const tick = (text: string, iso: string) => {
  const t = latestTick(cron(text), at(iso));
  return t === null ? null : new Date(t).toISOString();
};

describe('cron: the latest tick at or before a moment (UTC)', () => {
  it('is the moment itself when it is a tick, else the one before', () => {
    expect(tick('30 5 * * *', '2024-05-06T05:30:00Z')).toBe('2024-05-06T05:30:00.000Z');
    expect(tick('30 5 * * *', '2024-05-06T05:29:59Z')).toBe('2024-05-05T05:30:00.000Z');
    expect(tick('30 5,17 * * *', '2024-05-06T23:00:00Z')).toBe('2024-05-06T17:30:00.000Z');
    expect(tick('*/15 * * * *', '2024-05-06T10:44:59.999Z')).toBe('2024-05-06T10:30:00.000Z');
  });

  it('reads ranges, steps from a value, lists and names of months and days', () => {
    expect(tick('3/5 * * * *', '2024-05-06T10:02:00Z')).toBe('2024-05-06T09:58:00.000Z');
    expect(tick('0 8-17/3 * * *', '2024-05-06T16:00:00Z')).toBe('2024-05-06T14:00:00.000Z');
    expect(tick('0 0 1 jan,JUL *', '2024-05-06T00:00:00Z')).toBe('2024-01-01T00:00:00.000Z');
    // 2024-05-06 is a Monday; MON-FRI on the Sunday before goes back to Friday.
    expect(tick('0 9 * * MON-FRI', '2024-05-05T12:00:00Z')).toBe('2024-05-03T09:00:00.000Z');
    expect(tick('0 9 * * 0', '2024-05-06T12:00:00Z')).toBe('2024-05-05T09:00:00.000Z');
  });

  it('takes a day matching either the day of month or the day of week when both are restricted (POSIX)', () => {
    // The 13th, or any Friday: 2024-05-10 is a Friday, before the 13th.
    expect(tick('0 0 13 * 5', '2024-05-12T00:00:00Z')).toBe('2024-05-10T00:00:00.000Z');
    expect(tick('0 0 13 * 5', '2024-05-13T00:00:00Z')).toBe('2024-05-13T00:00:00.000Z');
    // One written from `*` does not restrict: then both must hold (every other day that is a Friday).
    expect(tick('0 0 */2 * 5', '2024-05-12T00:00:00Z')).toBe('2024-05-03T00:00:00.000Z');
    expect(tick('0 0 13 * *', '2024-05-12T00:00:00Z')).toBe('2024-04-13T00:00:00.000Z');
  });

  it('finds a February 29 four years back, and crosses month and year ends', () => {
    expect(tick('0 12 29 2 *', '2027-03-01T00:00:00Z')).toBe('2024-02-29T12:00:00.000Z');
    expect(tick('59 23 31 12 *', '2025-01-01T00:00:00Z')).toBe('2024-12-31T23:59:00.000Z');
  });

  it('names a tick in a ref-safe way', () => {
    expect(tickName(at('2024-05-06T09:05:00Z'))).toBe('20240506T0905Z');
    expect(tickOfName('20240506T0905Z')).toBe(at('2024-05-06T09:05:00Z'));
    // Only what tickName writes: no other spelling, no impossible date.
    expect(tickOfName('20240231T0905Z')).toBeNull();
    expect(tickOfName('2024-05-06T09:05Z')).toBeNull();
  });

  it('lists the ticks between two moments, oldest first, the latest ones when there are too many', () => {
    const iso = (r: { ticks: number[]; more: boolean }) => ({ ticks: r.ticks.map((t) => new Date(t).toISOString().slice(0, 16)), more: r.more });
    // After 10:00 (not counting it), up to 13:00 (counting it).
    expect(iso(ticksBetween(cron('0 * * * *'), at('2030-01-07T10:00:00Z'), at('2030-01-07T13:00:00Z'), 10))).toEqual({ ticks: ['2030-01-07T11:00', '2030-01-07T12:00', '2030-01-07T13:00'], more: false });
    expect(iso(ticksBetween(cron('0 * * * *'), at('2030-01-07T10:00:00Z'), at('2030-01-07T13:00:00Z'), 2))).toEqual({ ticks: ['2030-01-07T12:00', '2030-01-07T13:00'], more: true });
    expect(iso(ticksBetween(cron('0 6 * * 1'), at('2030-01-07T06:00:00Z'), at('2030-01-13T23:59:00Z'), 10))).toEqual({ ticks: [], more: false });
  });
});

describe('cron: what GitHub would refuse', () => {
  it.each([
    ['0 0 * *', /has 4 fields/],
    ['0 0 0 * * *', /has 6 fields.*no seconds or year/],
    ['@daily', /not a macro like @daily/],
    ['60 * * * *', /minute field: 60 is out of range \(0-59\)/],
    ['0 24 * * *', /hour field: 24 is out of range/],
    ['0 0 0 * *', /day of month field: 0 is out of range \(1-31\)/],
    ['0 0 * 13 *', /month field: 13 is out of range \(1-12 or JAN-DEC\)/],
    ['0 0 * * 7', /day of week field: 7 is out of range \(0-6 or SUN-SAT\)/],
    ['0 0 * * MONDAY', /"MONDAY" is not a value/],
    ['0 0 ? * *', /"\?" is not a value/],
    ['0 0 L * *', /"L" is not a value/],
    ['0 0 * * 5-1', /runs backwards/],
    ['*/0 * * * *', /step "0" must be at least 1/],
    ['0 0 31 2 *', /never happens/],
    ['* * * * *', /1 minute apart; GitHub runs a schedule at most once every 5 minutes/],
    ['0,3 * * * *', /3 minutes apart/],
  ])('%s', (text, message) => {
    expect(cronProblem(text)).toMatch(message);
  });

  it('accepts every 5 minutes, and measures across midnight', () => {
    expect(cronProblem('*/5 * * * *')).toBeNull();
    expect(cronProblem('58 0-1 * * *')).toBeNull();
    expect(shortestInterval(cron('58 23 * * *'))).toBe(1440);
    expect(shortestInterval(cron('0,58 0,23 * * *'))).toBe(2);
  });

  it('refuses a bad cron in a manifest at its line', () => {
    const r = loadWorkflowText('wf.yml', 'on:\n  schedule:\n    - cron: "0 9 * * 1"\n    - cron: "*/2 * * * *"\nsteps:\n  - id: a\n    run: "true"\n');
    expect(r.valid).toBe(false);
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}: ${d.message}`);
    expect(errors).toEqual(['wf.yml:4: `cron` in on.schedule #2: "*/2 * * * *" ticks 2 minutes apart; GitHub runs a schedule at most once every 5 minutes']);
    expect(loadWorkflowText('wf.yml', 'on:\n  schedule:\n    - cron: "0 9 * * 1"\nsteps:\n  - id: a\n    run: "true"\n').valid).toBe(true);
  });
});
