// `on.workflow_run` in App mode ("CI doctor"): a watched Actions workflow that fails on main gets
// one issue, opened by baton with the failure's facts, and one doctor run there; a second failure
// while that run is open is noted on the issue and starts nothing. Green runs, and CI on baton's
// own run branches, start nothing at all.
import { afterEach, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import { forkCommit, openForkPullRequest } from '../emulator/forks.ts';
import { READING_VALUES } from '../emulator/readings.ts';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const workflow = (name: string, run: string) => `name: ${name}
on: { workflow_dispatch: {} }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: ${run}
`;

/** Its ask step keeps the doctor run open without a worker. */
const DOCTOR = `name: doctor
on:
  workflow_run:
    workflows: [CI, Lint]
    branches: [main]
steps:
  - id: look
    ask: { questions: ["What broke?"] }
`;

const FILES = {
  '.agents/workflows/doctor.yml': DOCTOR,
  '.github/workflows/ci.yml': workflow('CI', 'exit 1'),
  '.github/workflows/lint.yml': workflow('Lint', '"true"'),
};

async function dispatch(h: Harness, file: string, ref: string): Promise<void> {
  await h.as('alice').request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...o, workflow_id: file, ref });
  await h.settle();
}

async function botIssues(h: Harness): Promise<Array<{ number: number; title: string; body: string }>> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'open', per_page: 100 });
  return all.filter((i) => i.user?.login === 'baton[bot]').map((i) => ({ number: i.number, title: i.title, body: i.body ?? '' }));
}

async function runIds(h: Harness, number: number): Promise<string[]> {
  return (await h.comments(number)).flatMap((body) => {
    if (!body.includes('baton:record')) return [];
    const read = readStateBlock(body, undefined, { unsignedRead: true });
    return read.ok ? [`${read.state.runId} by ${read.state.startedBy}`] : [];
  });
}

describe('app: the CI doctor', () => {
  it('a red run on main opens one issue with its facts and one run; a second red run while it is open starts none; green runs and run branches start nothing', async () => {
    h = await startHarness({ files: FILES });
    const main = (await h.as('alice').request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: 'heads/main' })).data.object.sha;
    await h.as('alice').request('POST /repos/{owner}/{repo}/git/refs', { ...o, ref: 'refs/heads/baton/scratch', sha: main });

    await dispatch(h, 'lint.yml', 'main');
    await dispatch(h, 'ci.yml', 'baton/scratch');
    expect(await botIssues(h)).toEqual([]);

    await dispatch(h, 'ci.yml', 'main');
    const [issue, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect(issue!.title).toBe('baton: workflow "CI" failed');
    const ciRuns = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.headBranch === 'main');
    expect(issue!.body).toContain(`- run: http`);
    expect(issue!.body).toContain(`/actions/runs/${ciRuns[0]!.id}`);
    expect(issue!.body).toContain('- failed jobs: `test` (`failure`)');
    expect(issue!.body).toContain(`- commit: \`${main}\``);
    expect(await runIds(h, issue!.number)).toEqual([`doctor-${issue!.number}-1 by alice`]);

    await dispatch(h, 'ci.yml', 'main');
    expect((await botIssues(h)).map((i) => i.number)).toEqual([issue!.number]);
    expect(await runIds(h, issue!.number)).toHaveLength(1);
    expect((await h.comments(issue!.number)).filter((c) => c.includes(`failed again while run \`doctor-${issue!.number}-1\` is still open`))).toHaveLength(1);
  });

  it('a hostile workflow name stays one line of code in the issue and makes no marker', async () => {
    const name = 'CI `x` <!-- baton:doctor 0000 --> @alice';
    h = await startHarness({ files: { ...FILES, '.agents/workflows/doctor.yml': DOCTOR.replace('[CI, Lint]', JSON.stringify([name])), '.github/workflows/ci.yml': workflow(JSON.stringify(name), 'exit 1') } });
    await dispatch(h, 'ci.yml', 'main');
    const [issue] = await botIssues(h);
    expect(issue!.body).toContain('- workflow: ``CI `x` @alice``');
    expect(issue!.title).toBe('baton: workflow "CI `x` @alice" failed');
    expect(issue!.body.match(/<!--/g)).toHaveLength(1);
  });

  // A fork's pull request runs CI here; the run's `head_branch` is the fork's branch name, which
  // may be `main` (docs "Events that trigger workflows", workflow_run; jbolda/covector#328). Alice
  // reopening it makes her the run's actor, so the actor check alone lets it through.
  it.each(READING_VALUES.forkSuiteHeadBranch)('a red run of a fork\'s pull request from its branch `main` starts no doctor run, even when a maintainer caused it (forkSuiteHeadBranch: %s)', async (forkSuiteHeadBranch) => {
    const PR_CI = workflow('CI', 'exit 1').replace('on: { workflow_dispatch: {} }', 'on: { pull_request: {} }');
    h = await startHarness({ files: { ...FILES, '.github/workflows/ci.yml': PR_CI }, readings: { forkSuiteHeadBranch }, triggerOnWebhooks: true });
    const sha = await forkCommit(h.emu, { ...o, fork: 'mallory', files: { 'src/app.txt': 'broken\n' } });
    const number = await openForkPullRequest(h.emu, { ...o, fork: 'mallory', branch: 'main', sha, title: 'Fix' });
    await h.settle();
    await h.as('alice').request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: number, state: 'closed' });
    await h.as('alice').request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: number, state: 'open' });
    await h.settle();
    const red = [...h.runner.store.runs.values()].filter((r) => r.workflowName === 'CI' && r.conclusion === 'failure');
    expect(red.map((r) => [r.headBranch, r.actor.login])).toEqual([['main', 'mallory'], ['main', 'alice']]);
    expect(await botIssues(h)).toEqual([]);
  });
});
