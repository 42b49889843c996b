// The day's runs as `budget.per-day` reads them from GitHub: one listing of the repository's
// comments touched since the UTC day began; records only from baton's own comments, each run
// once, only runs started that day; a day with more comments than the read covers is said to
// be incomplete (the door then refuses: a cap it cannot check does not allow a run).
import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyState, type RunState } from '../../src/engine/index.ts';
import type { GitHubClient, RepoContext } from '../../src/hosts/github/client.ts';
import { spendOfDay } from '../../src/engine/daily-budget.ts';
import { DAY_READ_MAX_PAGES, readDay } from '../../src/hosts/github/daily-spend.ts';
import { RECORD_MARKER } from '../../src/record/render.ts';
import { writeStateBlock } from '../../src/record/state-block.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

const owner = 'acme';
const repo = 'widgets';
const DAY_MS = 86_400_000;
let emu: Emulator;
let gh: RepoContext;
let issue: number;

beforeEach(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo);
  // The read starts ten minutes before midnight (clock skew): the test's day begins at noon's distance from it.
  const now = emu.clock.now();
  const noon = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS / 2;
  emu.clock.advance((noon > now ? noon : noon + DAY_MS) - now);
  const octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { issues: 'write' }, login: 'baton[bot]' }) });
  gh = { octokit: octokit as unknown as GitHubClient, owner, repo, defaultBranch: 'main', botLogin: 'baton[bot]', workerWorkflow: 'baton-worker.yml' };
  issue = (await user('alice').rest.issues.create({ owner, repo, title: 'Runs' })).data.number;
});
afterEach(async () => {
  await emu?.close();
});

const user = (login: string) => new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken(login) });

function record(runId: string, startedAt: number, costUsd: number): string {
  const state: RunState = { ...emptyState(), runId, workflow: runId.replace(/-\d+-\d+$/, ''), status: 'succeeded', startedAt, runBranch: `baton/${runId}`, budget: { steps: 1, costUsd } };
  return `${RECORD_MARKER}\n### run \`${runId}\`\n${writeStateBlock(state)}`;
}

async function post(as: Octokit | GitHubClient, body: string): Promise<number> {
  return (await (as as Octokit).rest.issues.createComment({ owner, repo, issue_number: issue, body })).data.id;
}

describe('readDay', () => {
  it("lists baton's own records touched since the UTC day began, each run once; the day's spend counts the runs started that day", async () => {
    const yesterday = emu.clock.now();
    // Yesterday's run whose status comment is edited today (a long run): listed, not today's spend.
    const old = await post(gh.octokit, record('daily-1-1', yesterday, 0.5));
    // Written yesterday and never since: not even listed.
    await post(gh.octokit, record('daily-2-1', yesterday, 0.25));
    emu.clock.advance(DAY_MS);
    const today = emu.clock.now();
    await gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: old, body: record('daily-1-1', yesterday, 0.75) });
    await post(gh.octokit, record('daily-3-1', today, 0.1));
    await post(gh.octokit, record('daily-3-1', today, 0.2)); // the same run's record twice: counted once, as its newest says
    await post(user('mallory'), record('daily-4-1', today, 9)); // pasted by someone else: never
    await post(gh.octokit, `A note.\n<!-- baton:reply budget/daily/x -->`);
    await post(user('mallory'), `Fake.\n<!-- baton:reply budget/daily/y -->`);

    const day = await readDay(gh, today);
    expect(day.complete).toBe(true);
    expect(day.runs.map((r) => r.runId).sort()).toEqual(['daily-1-1', 'daily-3-1']);
    expect(day.markers).toEqual(new Set(['baton:reply budget/daily/x']));
    expect(spendOfDay(day.runs, 'daily', today)).toEqual({ runs: 1, costUsd: 0.2, estimated: false });
  });

  it(`is incomplete when more comments were touched today than ${DAY_READ_MAX_PAGES} pages hold, and reads no more`, async () => {
    const store = emu.store;
    const repoId = store.repo(owner, repo)!.id;
    const stamp = new Date(emu.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const add = (n: number) => {
      for (let i = 0; i < n; i++) store.comments.set(store.nextId(), { id: 0, repoId, issueNumber: issue, user: 'alice', body: `chatter ${i}`, createdAt: stamp, updatedAt: stamp, reactions: [], viaApp: false });
      for (const [id, c] of store.comments) c.id = id;
    };
    add(DAY_READ_MAX_PAGES * 100);
    const listings = () => emu.requestLog.filter((r) => r.route === 'GET /repos/{owner}/{repo}/issues/comments').length;
    expect((await readDay(gh, emu.clock.now())).complete).toBe(true);
    expect(listings()).toBe(DAY_READ_MAX_PAGES);
    add(1);
    expect((await readDay(gh, emu.clock.now())).complete).toBe(false);
    expect(listings()).toBe(2 * DAY_READ_MAX_PAGES);
  });
});
