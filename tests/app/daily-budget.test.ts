// `budget.per-day`: the day's runs of a workflow are counted from its ledger on GitHub (refs
// only baton writes) at the door every start passes, in two pools: runs people with the role
// asked for, and runs events and schedules started. A cap reached starts nothing and costs one
// note a day per workflow; automatic starts after it cost no write; people who ask are told once
// per thread; the next UTC day (the app's and GitHub's clocks moved on together) starts runs
// again. A state block pasted by someone else never counts.
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRun } from '../../src/app/handlers/start.ts';
import type { GitHubClient, RepoContext } from '../../src/hosts/github/client.ts';
import { byName, defaultBranchHead, loadManifests } from '../../src/hosts/github/manifests.ts';
import { RECORD_MARKER } from '../../src/record/render.ts';
import { readStateBlock, writeStateBlock } from '../../src/record/state-block.ts';
import { dayClocks } from './day-clocks.ts';
import { appRequests, openLabelled, startHarness, type Harness } from './harness.ts';

const DAILY = `name: daily
on: { labels: ["baton:daily"], commands: [daily], schedule: [{ cron: "0 6 * * *" }] }
budget: { per-day: { max-runs: 2 } }
steps:
  - id: greet
    run: echo hi > hello.txt
`;
const COSTLY = `name: costly
on: { labels: ["baton:costly"] }
agents: { coder: { uses: claude-code } }
budget: { per-day: { max-cost-usd: 0.01 } }
steps:
  - { id: implement, agent: coder, prompt: "Implement it" }
`;

const o = { owner: 'acme', repo: 'widgets' };
const DAY_MS = 86_400_000;
/** Signs the state of the apps under test (BATON_STATE_SECRET): the forger below knows it too. */
const STATE_SECRET = 'daily-budget-test-state-secret';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  vi.unstubAllEnvs();
});

async function repoComments(h: Harness): Promise<Array<{ body: string; author: string; thread: number }>> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/comments', { ...o, per_page: 100 });
  return all.map((c) => ({ body: c.body ?? '', author: c.user?.login ?? '', thread: Number(c.issue_url.split('/').at(-1)) }));
}

/** Threads holding a status comment of baton's (a run). */
async function runThreads(h: Harness): Promise<number[]> {
  return (await repoComments(h)).filter((c) => c.author === 'baton[bot]' && c.body.startsWith(RECORD_MARKER)).map((c) => c.thread).sort((a, b) => a - b);
}

async function notes(h: Harness): Promise<Array<{ body: string; thread: number }>> {
  return (await repoComments(h)).filter((c) => c.author === 'baton[bot]' && c.body.includes('has reached its daily budget'));
}

async function issue(h: Harness, title: string): Promise<number> {
  return (await h.as('alice').rest.issues.create({ ...o, title, body: 'Please.' })).data.number;
}

/**
 * A start nobody asked for (a schedule), through the door every start passes, as the App's
 * installation: the same `startRun` the label and comment handlers call, with `trigger` set.
 */
async function scheduledStart(h: Harness, number: number, key: string): Promise<void> {
  const repo = h.emu.store.repo('acme', 'widgets')!;
  const installation = h.emu.store.installations.get(repo.installationId)!;
  const token = h.emu.auth.issue(repo.installationId, installation.permissions, undefined).token;
  const gh: RepoContext = {
    octokit: new Octokit({ baseUrl: h.emu.url, auth: token }) as unknown as GitHubClient,
    ...o,
    defaultBranch: 'main',
    botLogin: 'baton[bot]',
    workerWorkflow: 'baton-worker.yml',
    stateSecret: STATE_SECRET,
  };
  const sha = await defaultBranchHead(gh);
  const found = byName(await loadManifests(gh, sha), 'daily')!;
  const { data } = await h.as('alice').rest.issues.get({ ...o, issue_number: number });
  const log = { info: () => undefined, warn: (m: string) => h!.appErrors.push(`warn: ${m}`) };
  await startRun(h.app.runs, gh, { workflow: found.workflow, hash: found.hash, manifestCommit: sha, thread: { number, isPull: false, title: data.title, body: data.body ?? null, url: data.html_url }, actor: 'baton[bot]', actorIsBot: true, inputs: {}, key, trigger: 'schedule' }, log);
}

describe('app: budget.per-day', () => {
  it('max-runs 2, per pool: three asked starts make two runs and one reply; schedules start two more, then one note and no write; a person is told once per thread; the next UTC day runs start again', async () => {
    vi.stubEnv('BATON_STATE_SECRET', STATE_SECRET);
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/daily.yml': DAILY }, now: clock.now });
    clock.toNoon(h);
    const alice = h.as('alice');

    // Three starts at once (deliveries overlap, in a shuffled order): two runs, one note.
    const threads = await Promise.all([openLabelled(h, 'baton:daily'), openLabelled(h, 'baton:daily'), openLabelled(h, 'baton:daily')]);
    await h.settle();
    const ran = await runThreads(h);
    expect(ran).toHaveLength(2);
    const refused = threads.find((n) => !ran.includes(n))!;
    const [note, ...more] = await notes(h);
    expect(more).toEqual([]);
    expect(note!.thread).toBe(refused);
    expect(note!.body).toContain('@alice, `daily` has reached its daily budget: 2 of 2 runs (`max-runs`) started today at the request of people with its role');
    for (const n of ran) expect(await h.record(n)).toContain('— succeeded');

    // A start redelivered after the cap was reached is the start of a run already made, not a new
    // one: no note, no write.
    const labelled = h.emu.webhooks.deliveries.find((d) => d.event === 'issues' && d.action === 'labeled' && (d.payload.issue as { number: number }).number === ran[1])!;
    let before = appRequests(h.emu).length;
    await h.emu.webhooks.redeliver(labelled.id);
    await h.settle();
    expect(appRequests(h.emu).slice(before).filter((r) => r.method !== 'GET' && !r.path.endsWith('/reactions')).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(await notes(h)).toHaveLength(1);

    // Starts by a schedule spend the other pool: two runs more, then a third is refused with one
    // note, and a fourth costs no write at all (the note was posted today).
    const scheduled = [await issue(h, 'Scheduled 1'), await issue(h, 'Scheduled 2'), await issue(h, 'Scheduled 3'), await issue(h, 'Scheduled 4')];
    await scheduledStart(h, scheduled[0]!, 'schedule:daily:1');
    await scheduledStart(h, scheduled[1]!, 'schedule:daily:2');
    await h.settle();
    for (const n of scheduled.slice(0, 2)) expect(await h.record(n)).toContain('— succeeded');
    await scheduledStart(h, scheduled[2]!, 'schedule:daily:3');
    await h.settle();
    expect(await h.comments(scheduled[2]!)).toEqual([expect.stringContaining('`daily` has reached its daily budget: 2 of 2 runs (`max-runs`) started today by events and schedules')]);
    const fourth = scheduled[3]!;
    before = appRequests(h.emu).length;
    await scheduledStart(h, fourth, 'schedule:daily:4');
    await h.settle();
    expect(appRequests(h.emu).slice(before).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(await h.comments(fourth)).toEqual([]);

    // A person who asks where nobody was told is told there, once; asking again there costs no comment.
    await alice.rest.issues.createComment({ ...o, issue_number: fourth, body: '/baton daily' });
    await h.settle();
    await alice.rest.issues.createComment({ ...o, issue_number: fourth, body: '/baton daily' });
    await h.settle();
    expect((await h.comments(fourth)).filter((b) => b.includes('has reached its daily budget'))).toHaveLength(1);
    const all = [...ran, ...scheduled.slice(0, 2)].sort((a, b) => a - b);
    expect(await runThreads(h)).toEqual(all);

    // The next UTC day: runs start again.
    clock.moveOn(h, DAY_MS);
    const tomorrow = await openLabelled(h, 'baton:daily');
    await h.settle();
    expect(await runThreads(h)).toEqual([...all, tomorrow].sort((a, b) => a - b));
    expect(await h.record(tomorrow)).toContain('— succeeded');
    h.emu.assertNoViolations();
  }, 90_000);

  it('a start that makes no run (inputs the workflow does not take) gives its place in the day back', async () => {
    vi.stubEnv('BATON_STATE_SECRET', STATE_SECRET);
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/daily.yml': DAILY }, now: clock.now });
    clock.toNoon(h);
    const asked = await issue(h, 'Asked');
    for (const _ of [1, 2]) {
      await h.as('alice').rest.issues.createComment({ ...o, issue_number: asked, body: '/baton daily colour=red' });
      await h.settle();
    }
    expect((await h.comments(asked)).filter((b) => b.includes('`daily` was not started'))).toHaveLength(2);
    const ledger = (await h.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'baton/budget/' })) as Array<{ ref: string }>;
    expect(ledger.map((r) => r.ref)).toEqual([]);
    const ran = [await openLabelled(h, 'baton:daily'), await openLabelled(h, 'baton:daily')];
    await h.settle();
    expect(await runThreads(h)).toEqual(ran.sort((a, b) => a - b));
    h.emu.assertNoViolations();
  }, 90_000);

  it('max-cost-usd reached by a finished run stops new runs; a state block pasted by someone else never counts; /baton status shows the day', async () => {
    vi.stubEnv('BATON_STATE_SECRET', STATE_SECRET);
    const clock = dayClocks();
    h = await startHarness({ files: { '.agents/workflows/daily.yml': DAILY, '.agents/workflows/costly.yml': COSTLY }, roles: { alice: 'admin' }, now: clock.now });
    clock.toNoon(h);
    const alice = h.as('alice');

    // The first run's agent reports $0.0123 (the fake claude-code's default): over the day's $0.01.
    const first = await openLabelled(h, 'baton:costly');
    await h.settle();
    const genuine = await h.record(first);
    expect(genuine).toContain('— succeeded');

    // Someone without a role pastes records of three `daily` runs "started today", each a copy of
    // baton's status comment with a state block whose signature checks out (the key leaked): written
    // by them, not by baton, they count for nothing.
    const read = readStateBlock(genuine, STATE_SECRET);
    if (!read.ok) throw new Error(read.problem);
    const pasted = await issue(h, 'Pasted');
    for (const k of [901, 902, 903]) {
      const runId = `daily-${k}-1`;
      const state = { ...read.state, runId, workflow: 'daily', runBranch: `baton/${runId}`, startedAt: clock.now(), appliedKeys: [] };
      const lines = genuine.trimEnd().split('\n');
      lines[lines.length - 1] = writeStateBlock(state, STATE_SECRET, read.gen);
      await h.as('mallory').rest.issues.createComment({ ...o, issue_number: pasted, body: lines.join('\n') });
    }
    await h.settle();

    // The second `costly` start: refused by the money already spent, with the note.
    const second = await openLabelled(h, 'baton:costly');
    await h.settle();
    expect(await runThreads(h)).toEqual([first]);
    expect((await h.comments(second)).join('\n')).toContain("`costly` has reached its daily budget: today's runs at the request of people with its role have spent $0.01 of $0.01 (`max-cost-usd`)");

    // `daily` still has both runs of the day: the pasted records were not counted.
    const asked = await issue(h, 'Daily');
    await alice.rest.issues.createComment({ ...o, issue_number: asked, body: '/baton daily' });
    await h.settle();
    expect(await h.record(asked)).toContain('— succeeded');

    await alice.rest.issues.createComment({ ...o, issue_number: asked, body: '/baton status' });
    await h.settle();
    const status = (await h.comments(asked)).find((b) => b.includes('**Daily budgets**'));
    expect(status).toContain('- `daily` today: 1 of 2 runs, $0.00 spent at the request of people with its role; 0 of 2 runs, $0.00 spent by events and schedules');
    expect(status).toContain('- `costly` today: 1 run, $0.01 of $0.01 at the request of people with its role; 0 runs, $0.00 of $0.01 by events and schedules');
    h.emu.assertNoViolations();
  }, 90_000);
});
