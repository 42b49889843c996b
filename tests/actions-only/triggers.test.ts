// Runs started by GitHub events and schedules in Actions-only mode, end to end: the repository
// holds what `baton init --mode actions --workflows <library workflows>` wrote, and every event
// goes through the generated baton.yml (whose `on:` `baton init` derived from the manifests) on
// the emulator's runner, with the bundled Action and the fake agent CLIs. One harness per
// describe, its scenarios one after another (the set-up is shared; CI time counts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCHEDULE_PREFIX, cronKey } from '../../src/app/handlers/schedule.ts';
import { latestTick, parseCron, tickName } from '../../src/engine/cron.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { doctorCommand } from '../../src/cli/commands/doctor.ts';
import { main } from '../../src/cli/main.ts';
import { initFiles, startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const BOT = 'github-actions[bot]';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The `on:` block of the baton.yml `baton init` wrote. */
function batonOn(h: ActionsOnly): Record<string, unknown> {
  return (parse(h.initFiles['.github/workflows/baton.yml']!) as { on: Record<string, unknown> }).on;
}

/** baton's status comments on a thread, oldest first. */
async function records(h: ActionsOnly, n: number): Promise<string[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: n, per_page: 100 });
  return all.filter((c) => c.user?.login === BOT && c.body?.includes('baton:record')).map((c) => c.body ?? '');
}

/** The run ids recorded on a thread, with who started them. */
async function runIds(h: ActionsOnly, n: number): Promise<string[]> {
  return (await records(h, n)).flatMap((body) => {
    const read = readStateBlock(body, undefined, { unsignedRead: true });
    return read.ok ? [`${read.state.runId} by ${read.state.startedBy}`] : [];
  });
}

/** Open issues baton opened. */
async function botIssues(h: ActionsOnly): Promise<Array<{ number: number; title: string; body: string }>> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'open', per_page: 100 });
  return all.filter((i) => i.user?.login === BOT && !i.pull_request).map((i) => ({ number: i.number, title: i.title, body: i.body ?? '' }));
}

/** The workflow runs of baton.yml the runner started for `event`. */
const batonRuns = (h: ActionsOnly, event: string) => [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton.yml' && r.event === event);
const workers = (h: ActionsOnly) => [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton-worker.yml');

/** Every run of baton's workflows succeeded (but those `except` names), and the runner had no error of its own. */
function allClean(h: ActionsOnly, except: (r: { displayTitle: string }) => boolean = () => false): void {
  for (const r of h.runner.store.runs.values()) {
    if (!r.path.startsWith('.github/workflows/baton') || except(r)) continue;
    expect(r.conclusion, `${r.path} ${r.displayTitle}\n${h.runner.logs(r.id).slice(-4000)}`).toBe('success');
  }
  expect(h.runner.errors).toEqual([]);
}

/** One commit per file on `branch` through the contents API (a push: GitHub sends `push`, and `synchronize` for its pull requests). */
async function pushTo(h: ActionsOnly, branch: string, files: Record<string, string>): Promise<string> {
  let sha = '';
  for (const [path, content] of Object.entries(files)) {
    sha = (await h.as('alice').rest.repos.createOrUpdateFileContents({ ...o, path, branch, message: `Change ${path}`, content: b64(content) })).data.commit.sha!;
  }
  return sha;
}

/** alice branches `branch` off main, commits `files` on it and opens a pull request from it. */
async function openPull(h: ActionsOnly, branch: string, files: Record<string, string>): Promise<{ number: number; head: string }> {
  const alice = h.as('alice');
  const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await alice.rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: main });
  const head = await pushTo(h, branch, files);
  const number = (await alice.rest.pulls.create({ ...o, title: `Add ${branch}`, head: branch, base: 'main', body: 'Please review.' })).data.number;
  return { number, head };
}

describe('Actions-only: review-pr on pull request events', () => {
  let h: ActionsOnly;
  /** The worker run the second push cancelled. */
  let superseded = '';
  beforeAll(async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'review-pr'], files: {}, agentScript: [] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('baton.yml subscribes to the pull request events review-pr starts on', () => {
    const on = batonOn(h) as { pull_request: { types: string[] } };
    expect(on.pull_request.types).toEqual(expect.arrayContaining(['opened', 'synchronize', 'reopened', 'ready_for_review']));
  });

  it('a pull request opened gets one review with inline comments and a suggestion block', async () => {
    h.rescript([
      {
        reply: {
          approved: false,
          summary: 'Looked at src/app.txt: one change.',
          comments: [
            { path: 'src/app.txt', line: 3, start_line: 2, body: 'Spell the numbers out in capitals.', suggestion: 'TWO\nTHREE' },
            { path: 'src/app.txt', line: 1, body: 'Name this file for what it holds.' },
          ],
        },
      },
    ]);
    const pr = await openPull(h, 'feature', { 'src/app.txt': 'one\ntwo\nthree\nfour\nfive\n' });
    await h.settle();

    expect(await runIds(h, pr.number)).toEqual([`review-pr-${pr.number}-1 by alice`]);
    expect((await records(h, pr.number))[0]).toContain(`run \`review-pr-${pr.number}-1\` — succeeded`);
    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pr.number })).data;
    expect(reviews.map((r) => [r.user?.login, r.state, r.commit_id])).toEqual([[BOT, 'COMMENTED', pr.head]]);
    expect(reviews[0]!.body).toContain('Looked at src/app.txt: one change.');
    const comments = (await h.as('alice').rest.pulls.listReviewComments({ ...o, pull_number: pr.number })).data;
    expect(comments.map((c) => [c.path, c.start_line ?? null, c.line])).toEqual([
      ['src/app.txt', 2, 3],
      ['src/app.txt', null, 1],
    ]);
    expect(comments[0]!.body).toBe('Spell the numbers out in capitals.\n\n```suggestion\nTWO\nTHREE\n```');
    // It went through baton.yml's pull_request subscription, not around it.
    expect(batonRuns(h, 'pull_request').length).toBeGreaterThanOrEqual(1);
    // Nothing was pushed to the pull request.
    expect((await h.as('alice').rest.pulls.get({ ...o, pull_number: pr.number })).data.head.sha).toBe(pr.head);
    allClean(h);
  }, 120_000);

  it('a second push cancels the review of the first head (its status comment says so) and the new run reviews the new head', async () => {
    // The first review is still at work when the push comes; it would finish (and post a review
    // of the old head) once the file `release` exists, which the test makes only after baton.yml
    // has handled the push.
    const release = join(mkdtempSync(join(tmpdir(), 'baton-release-')), 'release');
    h.rescript([
      { waitForFile: release, reply: { approved: true, summary: 'Looked at the old head.', comments: [] } },
      { reply: { approved: false, summary: 'Looked at the new head of src/b.txt.', comments: [{ path: 'src/b.txt', line: 1, body: 'Say more.', suggestion: 'b, and more' }] } },
    ]);
    const pr = await openPull(h, 'second', { 'src/b.txt': 'b\n' });
    await h.waitFor('the first review at work', () => h.agentCalls() === 1);
    const after = await pushTo(h, 'second', { 'src/c.txt': 'c\n' });
    await h.waitFor('baton.yml done with the push', () => {
      const sync = h.runner.triggered.find((t) => t.path === '.github/workflows/baton.yml' && t.event === 'pull_request' && t.action === 'synchronize');
      return sync !== undefined && h.runner.store.runs.get(sync.runId)?.status === 'completed';
    });
    writeFileSync(release, '');
    await h.settle();
    rmSync(dirname(release), { recursive: true, force: true });

    const [first, second] = await records(h, pr.number);
    expect(first).toContain(`run \`review-pr-${pr.number}-1\` — cancelled`);
    expect(first).toContain(`**Cancelled:** superseded by \`review-pr-${pr.number}-2\` for head ${after.slice(0, 7)}`);
    expect(second).toContain(`run \`review-pr-${pr.number}-2\` — succeeded`);
    const reviews = (await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pr.number })).data;
    expect(reviews.map((r) => [r.user?.login, r.state, r.commit_id])).toEqual([[BOT, 'COMMENTED', after]]);
    expect(reviews[0]!.body).toContain(`Reviewed commit ${after}`);
    const mine = workers(h).filter((r) => r.displayTitle.includes(`review-pr-${pr.number}-`));
    expect(mine.map((r) => [r.displayTitle, r.conclusion]).sort()).toEqual([
      [`baton review-pr-${pr.number}-1 review[review] #1`, 'cancelled'],
      [`baton review-pr-${pr.number}-2 review[review] #1`, 'success'],
    ]);
    expect(h.runner.triggered.filter((t) => t.path === '.github/workflows/baton.yml' && t.event === 'pull_request' && t.action === 'synchronize')).toHaveLength(1);
    superseded = `baton review-pr-${pr.number}-1 review[review] #1`;
    allClean(h, (r) => r.displayTitle === superseded);
  }, 120_000);

  it('a pull request opened with the label `baton:review-pr` (opened, then labeled) gets one run and one review', async () => {
    h.rescript([{ reply: { approved: true, summary: 'Looked at src/d.txt: nothing to change.', comments: [] } }]);
    const pr = await openPull(h, 'labelled', { 'src/d.txt': 'd\n' });
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: pr.number, labels: ['baton:review-pr'] });
    await h.settle();

    expect(await runIds(h, pr.number)).toEqual([`review-pr-${pr.number}-1 by alice`]);
    expect((await h.as('alice').rest.pulls.listReviews({ ...o, pull_number: pr.number })).data.map((r) => r.commit_id)).toEqual([pr.head]);
    // Both deliveries went through baton.yml: the label's run job gave way to the opening's run.
    const mine = new Set(batonRuns(h, 'pull_request').filter((r) => r.displayTitle.includes('Add labelled')).map((r) => r.id));
    expect(h.runner.triggered.filter((t) => mine.has(t.runId)).map((t) => t.action).sort()).toEqual(['labeled', 'opened']);
    expect(h.agentCalls()).toBe(1);
    allClean(h, (r) => r.displayTitle === superseded);
  }, 120_000);
});

const TRIAGE_INIT = ['--mode', 'actions', '--workflows', 'triage'];

describe('Actions-only: triage on issues opened, and its daily budget', () => {
  let h: ActionsOnly;
  beforeAll(async () => {
    const init = await initFiles(TRIAGE_INIT);
    // One run a day (the library says 30), so that the second new issue meets the cap.
    const triage = init['.agents/workflows/triage.yml']!;
    expect(triage).toContain('per-day: { max-runs: 30,');
    h = await startActionsOnly({ init: TRIAGE_INIT, files: { '.agents/workflows/triage.yml': triage.replace('per-day: { max-runs: 30,', 'per-day: { max-runs: 1,') }, agentScript: [] });
    await h.as('alice').rest.issues.createLabel({ ...o, name: 'bug', color: 'd73a4a' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('baton.yml subscribes to issues opened', () => {
    const on = batonOn(h) as { issues: { types: string[] } };
    expect(on.issues.types).toEqual(expect.arrayContaining(['opened', 'labeled']));
  });

  it("an issue opened by someone without a role is triaged: the repository's label is applied, a made-up one is not created", async () => {
    h.rescript([
      { reply: { summary: 'The widget crashes on click.', labels: ['bug'], questions: [] } },
      { reply: { labels: ['bug', 'made-up-label'], kind: 'bug', priority: 'high' } },
    ]);
    const n = (await h.as('carol').rest.issues.create({ ...o, title: 'Widget crashes', body: 'When I click it.' })).data.number;
    await h.settle();

    expect(await runIds(h, n)).toEqual([`triage-${n}-1 by carol`]);
    const [record] = await records(h, n);
    expect(record).toContain(`run \`triage-${n}-1\` — succeeded`);
    const issue = (await h.as('alice').rest.issues.get({ ...o, issue_number: n })).data;
    expect(issue.labels.map((l) => (typeof l === 'string' ? l : l.name))).toEqual(['bug']);
    const labels = (await h.as('alice').rest.issues.listLabelsForRepo({ ...o, per_page: 100 })).data.map((l) => l.name);
    expect(labels).not.toContain('made-up-label');
    expect(workers(h).map((r) => r.displayTitle).sort()).toEqual([`baton triage-${n}-1 classify #1`, `baton triage-${n}-1 read #1`]);
    expect(batonRuns(h, 'issues').length).toBeGreaterThanOrEqual(1);
    allClean(h);
  }, 120_000);

  it('with the day\'s budget reached, a new issue gets one note and no run; the next one neither note nor run', async () => {
    const calls = h.agentCalls();
    const second = (await h.as('carol').rest.issues.create({ ...o, title: 'Another crash', body: 'Also.' })).data.number;
    await h.settle();
    const third = (await h.as('carol').rest.issues.create({ ...o, title: 'A third crash', body: 'Again.' })).data.number;
    await h.settle();

    const said = (await h.as('alice').rest.issues.listComments({ ...o, issue_number: second })).data.map((c) => c.body ?? '');
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('`triage` has reached its daily budget: ');
    expect(said[0]).toContain('No run was started.');
    expect((await h.as('alice').rest.issues.listComments({ ...o, issue_number: third })).data).toEqual([]);
    expect(await runIds(h, second)).toEqual([]);
    expect(h.agentCalls()).toBe(calls);
    // Both went through baton.yml (an issues run each), which started nothing.
    const opened = h.runner.triggered.filter((t) => t.path === '.github/workflows/baton.yml' && t.event === 'issues' && t.action === 'opened');
    expect(opened).toHaveLength(3);
    // An issue of someone with the workflow's role is told in its own thread: their work waits.
    const fourth = (await h.as('alice').rest.issues.create({ ...o, title: 'A maintainer\'s crash', body: 'Mine.' })).data.number;
    await h.settle();
    const toAlice = (await h.as('alice').rest.issues.listComments({ ...o, issue_number: fourth })).data.map((c) => c.body ?? '');
    expect(toAlice).toEqual([expect.stringContaining('`triage` has reached its daily budget: ')]);
    expect(await runIds(h, fourth)).toEqual([]);
    // `baton status` on a refused thread: no run there, and what baton said instead.
    const out: string[] = [];
    const code = await main(['status', `acme/widgets#${second}`], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() }, { GITHUB_TOKEN: h.emu.auth.userToken('alice'), GITHUB_API_URL: h.emu.apiUrl, BATON_APP_LOGIN: BOT });
    expect(code).toBe(0);
    expect(out.join('\n')).toContain(`no run on acme/widgets#${second}; baton said:\n  \`triage\` has reached its daily budget: `);
    expect(out.join('\n')).toMatch(/No run was started\. .*\(http\S+#issuecomment-\d+\)$/);
    expect(h.agentCalls()).toBe(calls);
    allClean(h);
  }, 120_000);
});

const CI = `name: CI
on: { workflow_dispatch: {} }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: test -f src/fixed.txt
`;
const UPKEEP_CRON = '0 6 * * 1';
const cronOf = (text: string) => {
  const parsed = parseCron(text);
  if (!parsed.ok) throw new Error(`bad cron ${text}`);
  return parsed.cron;
};
const DOCTOR_INIT = ['--mode', 'actions', '--workflows', 'ci-doctor,weekly-upkeep'];

/** The schedules' claim refs (`refs/baton/schedule/<workflow>/<cron key>/<tick>`). */
async function scheduleClaims(h: ActionsOnly): Promise<string[]> {
  const refs = await h.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'baton/schedule/', per_page: 100 });
  return (refs as Array<{ ref: string }>).map((r) => r.ref);
}

/** baton's comments on a thread saying a tick did not run (hosts/github/skip-notices.ts). */
async function skipNotices(h: ActionsOnly, n: number): Promise<string[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: n, per_page: 100 });
  return all.filter((c) => c.user?.login === BOT && (c.body ?? '').includes('<!-- baton:reply skip/')).map((c) => c.body ?? '');
}

/** What `baton doctor --github` prints about the repository's schedules over 30 days. */
async function doctorSays(h: ActionsOnly): Promise<string[]> {
  const out: string[] = [];
  const code = await doctorCommand(['--github', 'acme/widgets', '--days', '30'], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() }, { GITHUB_TOKEN: h.emu.auth.userToken('alice'), GITHUB_API_URL: h.emu.apiUrl });
  expect(code).toBe(0);
  const text = out.join('\n');
  return text.slice(text.indexOf('schedules on acme/widgets')).split('\n');
}

/** GitHub's scheduler firing the manifest's cron (the payload names the cron that fired); waits for what it started. */
async function cronTick(h: ActionsOnly): Promise<void> {
  const started = await h.runner.trigger(o.owner, o.repo, 'schedule', { schedule: UPKEEP_CRON });
  expect(started.map((r) => r.path)).toEqual(['.github/workflows/baton.yml']);
  await h.settle();
}

describe('Actions-only: ci-doctor on a red CI run, weekly-upkeep on its cron', () => {
  let h: ActionsOnly;
  beforeAll(async () => {
    const init = await initFiles(DOCTOR_INIT);
    // As the library's comments and docs/actions-only.md say for Actions-only mode: the checks
    // step dispatches the CI workflow on the fix (a GITHUB_TOKEN push starts no workflow).
    const doctor = init['.agents/workflows/ci-doctor.yml']!;
    expect(doctor).toContain('      names: [test]\n');
    // More than the library's one run a day: the missed ticks below come the same day.
    const upkeep = init['.agents/workflows/weekly-upkeep.yml']!;
    expect(upkeep).toContain('per-day: { max-runs: 1 }');
    h = await startActionsOnly({
      init: DOCTOR_INIT,
      files: {
        '.github/workflows/ci.yml': CI,
        '.agents/workflows/ci-doctor.yml': doctor.replace('      names: [test]\n', '      names: [test]\n      workflow: ci.yml\n'),
        '.agents/workflows/weekly-upkeep.yml': upkeep.replace('per-day: { max-runs: 1 }', 'per-day: { max-runs: 3 }'),
      },
      agentScript: [],
    });
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
  });
  afterAll(async () => {
    await h?.close();
  });

  it("baton.yml subscribes to the CI workflow's runs and to weekly-upkeep's cron", () => {
    const on = batonOn(h) as { workflow_run: { workflows: string[]; types: string[] }; schedule: Array<{ cron: string }> };
    expect(on.workflow_run).toEqual({ workflows: ['CI'], types: ['completed'] });
    expect(on.schedule.map((s) => s.cron)).toContain(UPKEEP_CRON);
  });

  it('CI red on main opens an issue describing the failure and a run that ends in a fix PR', async () => {
    h.rescript([{ write: { 'src/fixed.txt': 'fixed\n' }, reply: { cause: 'src/fixed.txt was missing', summary: 'Adds src/fixed.txt.' } }]);
    const alice = h.as('alice');
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const dispatchCi = async (ref: string) => {
      await alice.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...o, workflow_id: 'ci.yml', ref });
      await h.settle();
    };
    // Red on another branch: not the doctor's (on.workflow_run.branches: [main]).
    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/topic', sha: main });
    await dispatchCi('topic');
    expect([...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI').map((r) => [r.headBranch, r.conclusion])).toEqual([['topic', 'failure']]);
    expect(await botIssues(h)).toEqual([]);

    await dispatchCi('main');

    const [issue, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect(issue!.title).toBe('baton: workflow "CI" failed');
    const red = [...h.runner.store.runs.values()].find((r) => r.workflowName === 'CI' && r.headBranch === 'main')!;
    expect(red.conclusion).toBe('failure');
    expect(issue!.body).toContain(`/actions/runs/${red.id}`);
    expect(issue!.body).toContain('- failed jobs: `test` (`failure`)');
    expect(issue!.body).toContain(`- commit: \`${main}\``);
    const runId = `ci-doctor-${issue!.number}-1`;
    expect(await runIds(h, issue!.number)).toEqual([`${runId} by alice`]);
    expect((await records(h, issue!.number))[0]).toContain(`run \`${runId}\` — succeeded`);

    // The fix passed CI (dispatched on the run branch) and is a draft PR that closes the issue.
    const green = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headBranch === `baton/${runId}`);
    expect(green.map((r) => r.conclusion)).toEqual(['success']);
    const pulls = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pulls.map((p) => [p.head.ref, p.title, p.draft])).toEqual([[`baton/${runId}`, 'Fix CI: src/fixed.txt was missing', true]]);
    expect(pulls[0]!.body).toContain(`Fixes #${issue!.number}.`);
    expect(batonRuns(h, 'workflow_run').length).toBeGreaterThanOrEqual(2);
    allClean(h);
  }, 120_000);

  it('a cron tick after missed ones starts one run on the tracking issue it opens; the same tick again starts none', async () => {
    h.rescript([{ reply: { summary: 'Nothing drifted.', changed: false } }]);
    // baton last saw this schedule three weeks ago (the claim of that tick is all a schedule
    // keeps), and GitHub dropped the two ticks since: the one due now is the first to come.
    const alice = h.as('alice');
    const main = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    const prefix = `${SCHEDULE_PREFIX}weekly-upkeep/${cronKey(UPKEEP_CRON)}/`;
    const due = latestTick(cronOf(UPKEEP_CRON), Date.now())!;
    const seen = `${prefix}${tickName(due - 21 * 24 * 3600_000)}`;
    await alice.request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: seen, sha: main });
    const before = new Set((await botIssues(h)).map((i) => i.number));
    // `baton doctor` sees the schedule that did not run: the ticks after the one baton took last.
    const late = (await doctorSays(h)).filter((l) => l.includes('weekly-upkeep'));
    expect(late).toHaveLength(1);
    expect(late[0]).toMatch(/✗ weekly-upkeep {2}`0 6 \* \* 1`: [23] ticks did not run \(.*\); the last tick baton took: /);

    await cronTick(h);
    const tracking = (await botIssues(h)).filter((i) => !before.has(i.number));
    expect(tracking.map((i) => i.title)).toEqual(['baton: weekly-upkeep (scheduled)']);
    const n = tracking[0]!.number;
    expect(await runIds(h, n)).toEqual([`weekly-upkeep-${n}-1 by schedule`]);
    expect((await records(h, n))[0]).toContain(`run \`weekly-upkeep-${n}-1\` — succeeded`);
    expect(await scheduleClaims(h)).toEqual([`${prefix}${tickName(due)}`]);
    // The two ticks GitHub dropped are said on the tracking issue, with why.
    const week = 7 * 24 * 3600_000;
    const when = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
    const said = await skipNotices(h, n);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`\`weekly-upkeep\` did not run** at 2 ticks of its schedule \`${UPKEEP_CRON}\` (UTC): ${when(due - 2 * week)}, ${when(due - week)}.`);
    expect(said[0]).toContain("No schedule event came for these ticks: GitHub's scheduler delays and drops");

    // The same tick again (GitHub late and then on time, or two jobs for it at once): nothing more.
    await Promise.all([cronTick(h), cronTick(h)]);
    expect(await runIds(h, n)).toHaveLength(1);
    expect(await skipNotices(h, n)).toHaveLength(1);
    expect((await doctorSays(h)).join('\n')).toContain('did not: none');
    expect(h.agentCalls()).toBe(1);
    expect(batonRuns(h, 'schedule')).toHaveLength(3);
    allClean(h);
  }, 120_000);
});
