// The day's ledger of `budget.per-day`, kept in refs only baton (or anyone with write access)
// can make: one listing reads a workflow's day, whatever else happened in the repository; each
// pool apart; a run's end written twice counts once; a stranger cannot add to it; days before
// yesterday are cleared.
import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyState, type RunState } from '../../src/engine/index.ts';
import type { GitHubClient, RepoContext } from '../../src/hosts/github/client.ts';
import { spendOfDay } from '../../src/engine/daily-budget.ts';
import { BUDGET_PREFIX, claimNote, forgetStart, pruneDays, readDay, recordSpent, recordStart, startName, startRef } from '../../src/hosts/github/daily-spend.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

const owner = 'acme';
const repo = 'widgets';
const DAY_MS = 86_400_000;
let emu: Emulator;
let gh: RepoContext;
let sha: string;
let noon: number;

beforeEach(async () => {
  emu = await startEmulator();
  await emu.createRepo(owner, repo);
  const now = emu.clock.now();
  noon = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS / 2;
  const octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { contents: 'write', issues: 'write' }, login: 'baton[bot]' }) });
  gh = { octokit: octokit as unknown as GitHubClient, owner, repo, defaultBranch: 'main', botLogin: 'baton[bot]', workerWorkflow: 'baton-worker.yml' };
  sha = (await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
});
afterEach(async () => {
  await emu?.close();
});

const user = (login: string) => new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken(login) });
const listings = () => emu.requestLog.filter((r) => r.route === 'GET /repos/{owner}/{repo}/git/matching-refs/{ref}').length;
const ended = (runId: string, startedAt: number, costUsd: number, trigger?: 'issues'): RunState => ({ ...emptyState(), runId, workflow: 'triage', status: 'succeeded', startedAt, manifestCommit: sha, budget: { steps: 1, costUsd }, ...(trigger ? { trigger } : {}) });

describe('the daily ledger', () => {
  it("reads a workflow's day in one listing, each pool apart, whatever the repository's comments", async () => {
    const issue = (await user('eve').rest.issues.create({ owner, repo, title: 'Flood' })).data.number;
    // A stranger's thousand comments touch nothing the ledger is made of.
    const store = emu.store;
    const repoId = store.repo(owner, repo)!.id;
    const stamp = new Date(emu.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (let i = 0; i < 1001; i++) store.comments.set(store.nextId(), { id: 0, repoId, issueNumber: issue, user: 'eve', body: `chatter ${i}`, createdAt: stamp, updatedAt: stamp, reactions: [], viaApp: false });
    for (const [id, c] of store.comments) c.id = id;

    await recordStart(gh, startRef(noon, 'triage', 'auto', startName(5, 'd1')), sha);
    await recordStart(gh, startRef(noon, 'triage', 'auto', startName(5, 'd1')), sha); // the same start again: once
    await recordStart(gh, startRef(noon, 'triage', 'auto', startName(6, 'd2')), sha);
    await recordStart(gh, startRef(noon, 'triage', 'asked', startName(7, 'd3')), sha);
    await recordStart(gh, startRef(noon, 'other', 'asked', startName(7, 'd4')), sha); // another workflow
    await recordStart(gh, startRef(noon - DAY_MS, 'triage', 'auto', startName(8, 'd5')), sha); // yesterday
    await recordSpent(gh, ended('triage-5-1', noon, 0.25, 'issues'), 'auto');
    await recordSpent(gh, ended('triage-5-1', noon, 0.5, 'issues'), 'auto'); // its end seen twice: counted once, at its highest
    await recordSpent(gh, ended('triage-7-1', noon, 0.1), 'asked');
    await recordSpent(gh, ended('triage-8-1', noon - DAY_MS, 3, 'issues'), 'auto'); // started yesterday, ended today: yesterday's
    expect(await claimNote(gh, noon, 'triage', sha)).toBe(true);
    expect(await claimNote(gh, noon, 'triage', sha)).toBe(false);

    const before = listings();
    const day = await readDay(gh, noon, 'triage');
    expect(listings() - before).toBe(1);
    expect(emu.requestLog.filter((r) => r.route === 'GET /repos/{owner}/{repo}/issues/comments').length).toBe(0);
    expect(spendOfDay(day, 'auto')).toEqual({ runs: 2, costUsd: 0.5, estimated: false });
    expect(spendOfDay(day, 'asked')).toEqual({ runs: 1, costUsd: 0.1, estimated: false });
    expect(day.noted).toBe(true);

    await forgetStart(gh, startRef(noon, 'triage', 'auto', startName(6, 'd2')));
    expect(spendOfDay(await readDay(gh, noon, 'triage'), 'auto').runs).toBe(1);
  });

  it('cannot be written by someone without write access', async () => {
    emu.store.setRole(owner, repo, 'eve', 'read');
    await expect(user('eve').rest.git.createRef({ owner, repo, ref: startRef(noon, 'triage', 'asked', startName(1, 'x')), sha })).rejects.toMatchObject({ status: expect.any(Number) });
    const day = await readDay(gh, noon, 'triage');
    expect(spendOfDay(day, 'asked').runs).toBe(0);
  });

  it('clears the days before yesterday', async () => {
    for (const back of [0, 1, 2, 9]) await recordStart(gh, startRef(noon - back * DAY_MS, 'triage', 'auto', startName(1, `k${back}`)), sha);
    await pruneDays(gh, noon);
    const refs = (await gh.octokit.paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { owner, repo, ref: BUDGET_PREFIX.slice(5) })) as Array<{ ref: string }>;
    const days = new Date(noon).toISOString().slice(0, 10);
    const yesterday = new Date(noon - DAY_MS).toISOString().slice(0, 10);
    expect(refs.map((r) => r.ref.slice(BUDGET_PREFIX.length, BUDGET_PREFIX.length + 10)).sort()).toEqual([yesterday, days]);
  });
});
