// Round 3, attack 6: strangers shut budgets for everyone. (a) The day's spend was counted from
// one listing of every comment touched that day, which gave up past 1,000 and refused every
// start: one account's 1,001 comments refused the maintainers' own commands for the day. (b)
// A workflow strangers may start shared its cap with maintainers: three stranger issues spent
// `max-runs: 3` and `/baton tri` was answered "has reached its daily budget". (c) A stranger's
// push to their fork's pull request superseded (cancelled) a run a maintainer had asked for.
// Each is delivered as the attacker would, on the emulator with the real App (and, where the
// job's token and a fresh process change the path, in Actions-only mode).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forkCommit, openForkPullRequest, pushToForkPullRequest } from '../emulator/forks.ts';
import { dayClocks } from '../app/day-clocks.ts';
import { startHarness, type Harness } from '../app/harness.ts';
import { startActionsOnly, type ActionsOnly } from '../actions-only/harness.ts';
import { seedComments, strangerFlood, TRI } from './stranger-flood-scenario.ts';

const o = { owner: 'acme', repo: 'widgets' };

let h: Harness | undefined;
let a: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  await a?.close();
  h = undefined;
  a = undefined;
  vi.unstubAllEnvs();
});

describe('attack 6: strangers cannot spend a budget for others (App)', () => {
  it("three stranger issues spend `max-runs: 3` of the automatic starts; the maintainer's `/baton tri` still starts", async () => {
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/tri.yml': TRI }, now: clock.now });
    clock.toNoon(h);
    const flood = await strangerFlood(h, 0, 4);
    expect(flood.strangerRuns).toBe(3);
    expect(flood.maintainerStarted).toBe(true);
    expect((await h.comments(flood.asked)).join('\n')).not.toContain('@alice, `tri` has reached its daily budget');
    expect(await h.record(flood.asked)).toContain('— succeeded');
  }, 120_000);

  it("1,001 stranger comments alone refuse nothing: the stranger's next issue and the maintainer's command both start", async () => {
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/tri.yml': TRI }, now: clock.now });
    clock.toNoon(h);
    const flood = await strangerFlood(h, 1001, 2);
    expect(flood.strangerRuns).toBe(2);
    expect(flood.maintainerStarted).toBe(true);
  }, 120_000);

  it("1,001 stranger comments and 30 stranger issues in a day: the maintainer's command starts, and no start read the repository's comments", async () => {
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/tri.yml': TRI }, now: clock.now });
    clock.toNoon(h);
    const flood = await strangerFlood(h);
    expect(flood.maintainerStarted).toBe(true);
    expect(flood.strangerRuns).toBe(3);
    expect(flood.commentListings).toBe(0);
    h.emu.assertNoViolations();
  }, 180_000);

  it("a stranger's push to their fork's pull request supersedes the run their opening started, never the one a maintainer asked for", async () => {
    const CHECK = `name: check
on:
  commands: [check]
  pull_request: { forks: review, authors: [any] }
steps:
  - id: wait
    ask: { questions: ["Go on?"] }
`;
    h = await startHarness({ files: { '.agents/workflows/check.yml': CHECK } });
    const first = await forkCommit(h.emu, { ...o, fork: 'mallory', files: { 'src/app.txt': 'one\n' } });
    const number = await openForkPullRequest(h.emu, { ...o, fork: 'mallory', branch: 'patch-1', sha: first, title: 'Add the app' });
    await h.settle();
    expect((await h.runState(`check-${number}-1`)).status).toBe('running');
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: number, body: '/baton check' });
    await h.settle();
    const asked = await h.runState(`check-${number}-2`);
    expect([asked.status, asked.startedBy, asked.trigger]).toEqual(['running', 'alice', undefined]);

    const second = await forkCommit(h.emu, { ...o, fork: 'mallory', files: { 'src/app.txt': 'two\n' }, parent: first });
    await pushToForkPullRequest(h.emu, { ...o, fork: 'mallory', number, sha: second });
    await h.settle();
    expect((await h.runState(`check-${number}-3`)).status).toBe('running');
    expect((await h.runState(`check-${number}-1`)).status).toBe('cancelled');
    expect((await h.runState(`check-${number}-2`)).status).toBe('running');
  }, 120_000);
});

describe('attack 6: strangers cannot spend a budget for others (Actions-only)', () => {
  it("1,001 stranger comments and three stranger issues (`max-runs: 3`): the maintainer's `/baton triage` starts", async () => {
    const TRIAGE = TRI.replace('name: tri', 'name: triage').replace('commands: [tri]', 'commands: [triage]');
    a = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'triage'], files: { '.agents/workflows/triage.yml': TRIAGE }, agentScript: [] });
    const eve = a.as('eve');
    const spam: number[] = [];
    for (let i = 0; i < 3; i++) {
      spam.push((await eve.rest.issues.create({ ...o, title: `Spam ${i}`, body: 'Look.' })).data.number);
      if (i === 0) seedComments(a.emu, spam[0]!, 'eve', 1001);
      await a.settle();
    }
    const alice = a.as('alice');
    const asked = (await alice.rest.issues.create({ ...o, title: 'A real bug', body: 'It crashes.' })).data.number;
    await a.settle();
    await alice.rest.issues.createComment({ ...o, issue_number: asked, body: '/baton triage' });
    await a.settle();
    const said = (await alice.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: asked, per_page: 100 })).map((c) => c.body ?? '');
    expect(said.find((b) => b.includes('baton:record')) ?? 'no run').toContain(`run \`triage-${asked}-1\` — succeeded`);
    // Her issue's own automatic start meets the strangers' spent pool (one note); her command does not.
    expect(said.join('\n')).not.toContain('@alice, `triage` has reached its daily budget');
  }, 240_000);
});
