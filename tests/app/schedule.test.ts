// `on.schedule` in App mode: the sweep's clock ticks the crons. A tick starts one run on the
// workflow's tracking issue (opened by baton the first time, reused after), ticks missed while
// nothing looked start one run, and two App processes sweeping at once start each tick once.
import { afterEach, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import { doctorCommand } from '../../src/cli/commands/doctor.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Hourly; its ask step keeps each run open without a worker. */
const UPKEEP = `name: upkeep
on:
  schedule:
    - cron: "0 * * * *"
steps:
  - id: tidy
    ask: { questions: ["Anything to tidy?"] }
`;

/** baton's open issues: [number, title]. */
async function botIssues(h: Harness): Promise<Array<{ number: number; title: string; body: string }>> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'open', per_page: 100 });
  return all.filter((i) => i.user?.login === 'baton[bot]').map((i) => ({ number: i.number, title: i.title, body: i.body ?? '' }));
}

/** The run ids whose records are on thread `number`, oldest first. */
async function runIds(h: Harness, number: number): Promise<string[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: number, per_page: 100 });
  return all.flatMap((c) => {
    if (c.user?.login !== 'baton[bot]' || !c.body?.includes('baton:record')) return [];
    const read = readStateBlock(c.body, undefined, { unsignedRead: true });
    return read.ok ? [`${read.state.runId} by ${read.state.startedBy}`] : [];
  });
}

async function scheduleClaims(h: Harness): Promise<string[]> {
  const refs = await h.as('alice').request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'baton/schedule/' });
  return refs.data.map((r) => r.ref.replace(/^refs\/baton\/schedule\/upkeep\/[0-9a-f]+\//, ''));
}

/** baton's comments saying a tick did not run (hosts/github/skip-notices.ts), oldest first. */
async function skipNotices(h: Harness, number: number): Promise<string[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: number, per_page: 100 });
  return all.filter((c) => c.user?.login === 'baton[bot]' && /<!-- baton:reply skip\/upkeep\//.test(c.body ?? '')).map((c) => c.body ?? '');
}

describe('app: schedules', () => {
  it('starts one run per tick on the tracking issue it opens, reuses it, and runs missed ticks once', async () => {
    let clock = Date.parse('2030-01-07T10:30:00Z');
    h = await startHarness({ files: { '.agents/workflows/upkeep.yml': UPKEEP }, now: () => clock });
    // First seen at 10:30: like GitHub's schedules, the first run comes at the next tick.
    await h.app.sweep();
    await h.settle();
    expect(await botIssues(h)).toEqual([]);
    expect(await scheduleClaims(h)).toEqual(['20300107T1000Z']);

    clock = Date.parse('2030-01-07T11:00:00Z');
    await h.app.sweep();
    await h.settle();
    const [issue, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect(issue!.title).toBe('baton: upkeep (scheduled)');
    expect(issue!.body).toContain('remove `on.schedule`');
    expect(await runIds(h, issue!.number)).toEqual([`upkeep-${issue!.number}-1 by schedule`]);

    // The same tick again: nothing.
    clock = Date.parse('2030-01-07T11:40:00Z');
    await h.app.sweep();
    await h.settle();
    expect(await runIds(h, issue!.number)).toHaveLength(1);

    clock = Date.parse('2030-01-07T12:00:30Z');
    await h.app.sweep();
    await h.settle();
    expect(await runIds(h, issue!.number)).toEqual([`upkeep-${issue!.number}-1 by schedule`, `upkeep-${issue!.number}-2 by schedule`]);

    // Three ticks pass unseen (13:00, 14:00, 15:00): one run.
    clock = Date.parse('2030-01-07T15:20:00Z');
    await h.app.sweep();
    await h.settle();
    expect(await runIds(h, issue!.number)).toHaveLength(3);
    expect((await botIssues(h)).map((i) => i.number)).toEqual([issue!.number]);
    // One claim per schedule: each tick's replaced the one before.
    expect(await scheduleClaims(h)).toEqual(['20300107T1500Z']);
    // The two ticks nobody looked at are said on the tracking issue, with why, before the run of 15:00.
    const said = await skipNotices(h, issue!.number);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('`upkeep` did not run** at 2 ticks of its schedule `0 * * * *` (UTC): 2030-01-07 13:00, 2030-01-07 14:00.');
    expect(said[0]).toContain('the App was down');
    expect(said[0]).toContain('This run is for the tick at 2030-01-07 15:00');
    // Looked at again (the same tick, a later sweep): said once.
    clock = Date.parse('2030-01-07T15:40:00Z');
    await h.app.sweep();
    await h.settle();
    expect(await skipNotices(h, issue!.number)).toHaveLength(1);
    // `baton status` on the tracking issue shows it with the newest run.
    const out: string[] = [];
    const io: CliIO = { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() };
    expect(await main(['status', `acme/widgets#${issue!.number}`], io, { GITHUB_TOKEN: h.emu.auth.userToken('alice'), GITHUB_API_URL: h.emu.apiUrl })).toBe(0);
    expect(out.join('\n')).toMatch(/did not run \(said on the thread\):\n {2}⚠️ `upkeep` did not run at 2 ticks of its schedule `0 \* \* \* \*` \(UTC\): 2030-01-07 13:00, 2030-01-07 14:00\. \(http\S+#issuecomment-\d+\)/);
  });

  it('two App processes sweeping at the same moment start each tick once', async () => {
    let clock = Date.parse('2030-01-07T10:30:00Z');
    h = await startHarness({ files: { '.agents/workflows/upkeep.yml': UPKEEP }, now: () => clock, replicas: 2 });
    await Promise.all(h.apps.map((a) => a.sweep()));
    for (const at of ['2030-01-07T11:00:00Z', '2030-01-07T12:00:00Z']) {
      clock = Date.parse(at);
      await Promise.all(h.apps.map((a) => a.sweep()));
      await h.settle();
    }
    const issues = await botIssues(h);
    expect(issues).toHaveLength(1);
    expect(await runIds(h, issues[0]!.number)).toEqual([`upkeep-${issues[0]!.number}-1 by schedule`, `upkeep-${issues[0]!.number}-2 by schedule`]);
    // Both down over 13:00 and 14:00, both back at once: the missed ticks are said once.
    clock = Date.parse('2030-01-07T15:01:00Z');
    await Promise.all(h.apps.map((a) => a.sweep()));
    await h.settle();
    expect(await runIds(h, issues[0]!.number)).toHaveLength(3);
    const said = await skipNotices(h, issues[0]!.number);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('at 2 ticks of its schedule');
  });

  it('baton doctor --github names the schedule that did not run while the App was down, and none once it ran', async () => {
    let clock = Date.parse('2030-01-07T10:30:00Z');
    const DAILY = UPKEEP.replace('name: upkeep', 'name: daily').replace('"0 * * * *"', '"0 6 * * *"');
    h = await startHarness({ files: { '.agents/workflows/upkeep.yml': UPKEEP, '.agents/workflows/daily.yml': DAILY }, now: () => clock });
    await h.app.sweep();
    clock = Date.parse('2030-01-07T11:00:00Z');
    await h.app.sweep();
    await h.settle();
    const env = { GITHUB_TOKEN: h.emu.auth.userToken('alice'), GITHUB_API_URL: h.emu.apiUrl };
    const doctor = async (): Promise<{ code: number; out: string; json: { schedules: { didNotRun: Array<{ workflow: string; missed: number; first: string; last: string; lastTaken: string | null }> } } }> => {
      const out: string[] = [];
      const io: CliIO = { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() };
      const code = await doctorCommand(['--github', 'acme/widgets', '--days', '2'], io, env, () => clock);
      const jsonOut: string[] = [];
      await doctorCommand(['--github', 'acme/widgets', '--days', '2', '--json'], { ...io, out: (t) => jsonOut.push(t) }, env, () => clock);
      return { code, out: out.join('\n'), json: JSON.parse(jsonOut.join('\n')) };
    };
    expect((await doctor()).out).toContain('schedules on acme/widgets that should have run in the last 2 days and did not: none');

    // The App is down from 11:30 to 15:30: 12:00, 13:00 and 14:00 did not run (15:00 may still be late).
    clock = Date.parse('2030-01-07T15:30:00Z');
    const down = await doctor();
    expect(down.code).toBe(0);
    expect(down.out).toContain('✗ upkeep  `0 * * * *`: 3 ticks did not run (2030-01-07 12:00 … 2030-01-07 14:00); the last tick baton took: 2030-01-07 11:00');
    // The daily schedule's last tick (06:00, taken when first seen) is its latest: not listed.
    expect(down.out).not.toContain('daily');
    expect(down.json.schedules.didNotRun).toEqual([{ workflow: 'upkeep', cron: '0 * * * *', lastTaken: '2030-01-07T11:00:00.000Z', missed: 3, more: false, first: '2030-01-07T12:00:00.000Z', last: '2030-01-07T14:00:00.000Z' }]);

    // Back up: the 15:00 tick runs (the missed ones said on its tracking issue), and the doctor has nothing to say.
    await h.app.sweep();
    await h.settle();
    expect((await doctor()).out).toContain('did not: none');
  });

  it('says on the tracking issue a tick whose run GitHub refused, once, and runs the next tick', async () => {
    let clock = Date.parse('2030-01-07T10:30:00Z');
    h = await startHarness({ files: { '.agents/workflows/upkeep.yml': UPKEEP }, now: () => clock });
    await h.app.sweep();
    // At 11:00 GitHub refuses the listing of issues the tick's run needs (its tracking issue).
    h.emu.faults.add({ kind: 'not-found', route: 'GET /repos/{owner}/{repo}/issues', times: 1 });
    clock = Date.parse('2030-01-07T11:00:00Z');
    await h.app.sweep();
    await h.settle();
    const [issue, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect(await runIds(h, issue!.number)).toEqual([]);
    const said = await skipNotices(h, issue!.number);
    expect(said).toEqual([expect.stringContaining('`upkeep` did not run** at 1 tick of its schedule `0 * * * *` (UTC): 2030-01-07 11:00.')]);
    expect(said[0]).toContain('GitHub refused what its run needed: 404 ');
    // The same tick looked at again: taken, nothing more said; the next tick runs.
    clock = Date.parse('2030-01-07T11:30:00Z');
    await h.app.sweep();
    clock = Date.parse('2030-01-07T12:00:00Z');
    await h.app.sweep();
    await h.settle();
    expect(await runIds(h, issue!.number)).toEqual([`upkeep-${issue!.number}-1 by schedule`]);
    expect(await skipNotices(h, issue!.number)).toHaveLength(1);
  });
});
