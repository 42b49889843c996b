// The library's triage, ci-doctor and weekly-upkeep, as `baton init --mode app` writes them
// (with review-pr beside them), on the emulator with the App and the real worker, each run
// followed to its end: a stranger's new issue is triaged and labelled; CI red on main gets the
// doctor's issue and a run that ends in a draft fix PR; the weekly tick starts a run that ends
// with "nothing changed". The issues and pull requests baton opens on the way start none of
// these workflows (baton's own events). One App and emulator serve the three stories: set-up
// is the costly part, and each story has threads of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import type { RunState } from '../../src/engine/index.ts';
import { initFiles } from '../actions-only/harness.ts';
import { startHarness, type AgentScript, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

/** CI, as the doctor watches it (`workflows: [CI]`): `test` fails until fixed.txt exists; on main by hand, on run branches on every push. */
const CI = `name: CI
on:
  workflow_dispatch: {}
  push: { branches: ["baton/*"] }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: test -f fixed.txt
`;

const AGENTS: AgentScript = {
  // triage: nothing to ask; the classifier picks one label the repository has, one of the step's
  // list it does not have, and one the step does not list.
  read: [{ output: { summary: 'The widget crashes on empty input.', labels: ['bug'], questions: [] } }],
  classify: [{ output: { labels: ['bug', 'duplicate', 'crash'], kind: 'bug', priority: 'high' } }],
  // ci-doctor: the fix makes `test` pass.
  fix: [{ write: { 'fixed.txt': 'fixed\n' }, output: { cause: 'fixed.txt is missing', summary: 'Adds fixed.txt.' } }],
  // weekly-upkeep: nothing drifted this week.
  tidy: [{ output: { summary: 'Nothing drifted: docs and comments match the code.', changed: false } }],
};

let h: Harness;
let clock = Date.parse('2030-01-07T05:30:00Z'); // a Monday, before the upkeep's 06:00 tick
beforeAll(async () => {
  const generated = await initFiles(['--mode', 'app', '--workflows', 'review-pr,triage,ci-doctor,weekly-upkeep']);
  h = await startHarness({ files: { ...generated, '.github/workflows/ci.yml': CI }, agents: AGENTS, roles: { alice: 'admin' }, triggerOnWebhooks: true, now: () => clock });
  // Seen first before the tick: like GitHub's schedules, the first run comes at the next tick.
  await h.app.sweep();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

function statesOf(bodies: string[]): RunState[] {
  return bodies.flatMap((body) => {
    if (!body.includes('baton:record')) return [];
    const read = readStateBlock(body, undefined, { unsignedRead: true });
    return read.ok ? [read.state] : [];
  });
}
const runsOn = async (n: number) => statesOf(await h.comments(n));

async function botIssues(): Promise<Array<{ number: number; title: string; body: string }>> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'open', per_page: 100 });
  return all.filter((i) => i.user?.login === 'baton[bot]' && !i.pull_request).map((i) => ({ number: i.number, title: i.title, body: i.body ?? '' }));
}

/** Every run any thread holds, as `runId status`. */
async function allRuns(): Promise<string[]> {
  const threads = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'all', per_page: 100 });
  const out: string[] = [];
  for (const t of threads) for (const s of await runsOn(t.number)) out.push(`${s.runId} ${s.status}`);
  return out.sort();
}

describe('app: the library triage, ci-doctor and weekly-upkeep, each run to its end', () => {
  it('an issue a stranger opens is triaged (authors: any) and labelled with the labels the repository has', async () => {
    await h.as('alice').rest.issues.createLabel({ ...o, name: 'bug', color: 'd73a4a' });
    const n = (await h.as('carol').rest.issues.create({ ...o, title: 'Crash on empty input', body: 'It crashes.' })).data.number;
    await h.settle();

    const [run, ...more] = await runsOn(n);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ runId: `triage-${n}-1`, status: 'succeeded', startedBy: 'carol' });
    expect(run!.steps.map((s) => `${s.id} ${s.status}`)).toEqual(['read succeeded', 'ask skipped', 'classify succeeded', 'apply succeeded']);
    expect(run!.steps.find((s) => s.id === 'apply')!.outputs).toEqual({ applied: ['bug'], unknown: ['duplicate'], dropped: ['crash'] });
    expect((await h.as('alice').rest.issues.listLabelsOnIssue({ ...o, issue_number: n })).data.map((l) => l.name)).toEqual(['bug']);
    // The stranger opened it, the manifest acted: no reply was rationed, the status comment is there.
    expect(await h.record(n)).toContain(`run \`triage-${n}-1\` — succeeded`);
  }, 120_000);

  it('CI red on main → the doctor\'s issue with the failure, and a run that ends in a draft fix PR closing it', async () => {
    await h.as('alice').request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...o, workflow_id: 'ci.yml', ref: 'main' });
    await h.settle();

    const red = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headBranch === 'main');
    expect(red.map((r) => r.conclusion)).toEqual(['failure']);
    const doctor = (await botIssues()).filter((i) => i.title === 'baton: workflow "CI" failed');
    expect(doctor).toHaveLength(1);
    const issue = doctor[0]!;
    expect(issue.body).toContain(`/actions/runs/${red[0]!.id}`);
    const runId = `ci-doctor-${issue.number}-1`;
    const [run, ...more] = await runsOn(issue.number);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ runId, status: 'succeeded' });
    expect(run!.steps.map((s) => `${s.id} ${s.status}`)).toEqual(['fix succeeded', 'ci succeeded', 'pr succeeded']);

    // CI ran on the fix and passed; the draft PR is the run's, its head that green commit.
    const onFix = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headBranch === `baton/${runId}`);
    // Red on the branch's first push (main's code), green on the fix.
    expect(onFix.map((r) => r.conclusion)).toEqual(['failure', 'success']);
    const prs = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data.filter((p) => p.head.ref === `baton/${runId}`);
    expect(prs.map((p) => ({ title: p.title, draft: p.draft, head: p.head.sha }))).toEqual([{ title: 'Fix CI: fixed.txt is missing', draft: true, head: onFix[1]!.headSha }]);
    expect(prs[0]!.body).toContain(`Fixes #${issue.number}.`);
    expect(run!.pr?.number).toBe(prs[0]!.number);
    // CI failing on the run branch is not CI failing on main (branches: [main]): one doctor issue, one doctor run.
    expect((await allRuns()).filter((r) => r.startsWith('ci-doctor-'))).toEqual([`${runId} succeeded`]);
  }, 180_000);

  it('the weekly tick starts one run on the tracking issue that ends with "nothing changed": no CI, no PR', async () => {
    const before = (await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data.length;
    clock = Date.parse('2030-01-07T06:00:30Z');
    await h.app.sweep();
    await h.settle();

    const tracking = (await botIssues()).filter((i) => i.title === 'baton: weekly-upkeep (scheduled)');
    expect(tracking).toHaveLength(1);
    const [run, ...more] = await runsOn(tracking[0]!.number);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ runId: `weekly-upkeep-${tracking[0]!.number}-1`, status: 'succeeded', startedBy: 'schedule' });
    expect(run!.steps.map((s) => `${s.id} ${s.status}`)).toEqual(['tidy succeeded', 'ci skipped', 'pr skipped']);
    expect(run!.steps[0]!.outputs).toEqual({ summary: 'Nothing drifted: docs and comments match the code.', changed: false });
    expect(await h.record(tracking[0]!.number)).toContain(`run \`${run!.runId}\` — succeeded`);
    // What the agent found is on the step's check run, where the run's checks are read.
    const checks = (await h.as('alice').rest.checks.listForRef({ ...o, ref: run!.head, per_page: 100 })).data.check_runs;
    const tidy = checks.find((c) => c.name === 'baton / weekly-upkeep / tidy');
    expect(tidy).toMatchObject({ conclusion: 'success' });
    expect(tidy!.output.summary).toContain('Nothing drifted: docs and comments match the code.');
    expect((await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data).toHaveLength(before);
  }, 120_000);

  it('what baton opened on the way (the doctor\'s and the tracking issue, the fix PR) started none of these workflows', async () => {
    const runs = await allRuns();
    expect(runs.map((r) => r.replace(/-\d+-\d+ /, ' '))).toEqual(['ci-doctor succeeded', 'triage succeeded', 'weekly-upkeep succeeded']);
  });

  it('the sweeps remove the branches of the runs that committed nothing (triage, the idle upkeep) and keep the doctor\'s: its pull request shows it', async () => {
    const branches = async () => (await h.as('alice').request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'heads/baton/' })).data.map((r) => r.ref.replace(/-\d+-\d+$/, ''));
    // The tick's sweep already took the triage's; the upkeep ended after it.
    expect((await branches()).sort()).toEqual(['refs/heads/baton/ci-doctor', 'refs/heads/baton/weekly-upkeep']);
    await h.app.sweep();
    await h.settle();
    expect(await branches()).toEqual(['refs/heads/baton/ci-doctor']);
  });
});
