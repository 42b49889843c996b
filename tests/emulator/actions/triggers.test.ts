// Event-triggered runs: with `triggerOnWebhooks`, the webhooks the emulator emits start the
// workflows that listen to them — and events a job's GITHUB_TOKEN caused start nothing.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator.ts';
import { withActions } from './index.ts';
import type { RunRecord } from './records.ts';
import type { ActionsRunner } from './runner.ts';
import { globRegex, matchesFilter, workflowListens } from './triggers.ts';

/** A workflow whose one job prints what the runner gave it. */
function showing(name: string, on: string, extra = ''): string {
  return `name: ${name}
${on}
jobs:
  show:
    runs-on: ubuntu-latest
    steps:
      - run: |
          echo "event=$GITHUB_EVENT_NAME ref=$GITHUB_REF ref_name=$GITHUB_REF_NAME sha=$GITHUB_SHA"
          echo "head_ref=$GITHUB_HEAD_REF base_ref=$GITHUB_BASE_REF"
          echo "action=\${{ github.event.action }} ctx_event=\${{ github.event_name }} ctx_sha=\${{ github.sha }}"
          echo "path_action=$(node -e 'console.log(require(process.env.GITHUB_EVENT_PATH).action)')"
${extra}`;
}

let emu: Emulator;
let runner: ActionsRunner;

beforeAll(async () => {
  const actions = withActions({ triggerOnWebhooks: true });
  emu = await startEmulator({ plugins: [actions.plugin] });
  runner = actions.runner;
});

afterAll(async () => {
  await emu?.close();
});

const as = (login: string): Octokit => new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken(login) });

async function repo(name: string, files: Record<string, string>): Promise<{ owner: string; repo: string }> {
  await emu.createRepo('acme', name, { 'README.md': `# ${name}\n`, ...files });
  emu.store.setRole('acme', name, 'alice', 'admin');
  return { owner: 'acme', repo: name };
}

function runsOf(o: { repo: string }): RunRecord[] {
  return [...runner.store.runs.values()].filter((r) => r.repo === o.repo);
}

async function headOf(o: { owner: string; repo: string }, branch = 'main'): Promise<string> {
  return (await as('alice').rest.git.getRef({ ...o, ref: `heads/${branch}` })).data.object.sha;
}

describe('event triggers', () => {
  it('schedule: each cron expression fires the workflows listing it, on the default branch, with GitHub\'s payload', async () => {
    const o = await repo('scheduled', {
      '.github/workflows/often.yml': showing('often', "on:\n  schedule:\n    - cron: '*/5 * * * *'\n  issues: { types: [labeled] }", '      - run: echo "schedule=${{ github.event.schedule }} repo=${{ github.event.repository.full_name }}"\n'),
      '.github/workflows/nightly.yml': showing('nightly', "on:\n  schedule:\n    - cron: '17 3 * * *'"),
      '.github/workflows/push.yml': showing('push-only', 'on: push'),
    });
    const started = await runner.schedule(o.owner, o.repo);
    await runner.idle();
    expect(started.map((r) => r.path).sort()).toEqual(['.github/workflows/nightly.yml', '.github/workflows/often.yml']);
    const often = started.find((r) => r.path.endsWith('often.yml'))!;
    expect(often).toMatchObject({ event: 'schedule', headBranch: 'main', headSha: await headOf(o) });
    const log = runner.logs(often.id);
    expect(log).toContain('event=schedule ref=refs/heads/main');
    expect(log).toContain('schedule=*/5 * * * * repo=acme/scheduled');
  });

  it('issues.labeled starts the workflows listening to labeled, not those listening to opened', async () => {
    const o = await repo('labels', {
      '.github/workflows/labeled.yml': showing('labeled', 'on:\n  issues:\n    types: [labeled]', '      - run: echo "label=${{ github.event.label.name }}"\n'),
      '.github/workflows/opened.yml': showing('opened', 'on:\n  issues:\n    types: [opened]'),
      '.github/workflows/list.yml': showing('list', 'on: [issues, push]'),
      '.github/workflows/string.yml': showing('string', 'on: issue_comment'),
    });
    const head = await headOf(o);
    const issue = (await as('alice').rest.issues.create({ ...o, title: 'Broken' })).data;
    await runner.idle();
    expect(runsOf(o).map((r) => r.path).sort()).toEqual(['.github/workflows/list.yml', '.github/workflows/opened.yml']);

    await as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['bug'] });
    await runner.idle();
    const labeled = runsOf(o).filter((r) => r.path === '.github/workflows/labeled.yml');
    expect(labeled).toHaveLength(1);
    expect(runsOf(o).filter((r) => r.path === '.github/workflows/opened.yml')).toHaveLength(1);
    expect(runsOf(o).filter((r) => r.path === '.github/workflows/list.yml')).toHaveLength(2);
    expect(runsOf(o).some((r) => r.path === '.github/workflows/string.yml')).toBe(false);

    const run = labeled[0]!;
    expect(run.conclusion, runner.logs(run.id)).toBe('success');
    expect(run.event).toBe('issues');
    expect(run.actor.login).toBe('alice');
    expect(run.headSha).toBe(head);
    expect(run.headBranch).toBe('main');
    const log = runner.logs(run.id);
    expect(log).toContain(`event=issues ref=refs/heads/main ref_name=main sha=${head}`);
    expect(log).toContain(`action=labeled ctx_event=issues ctx_sha=${head}`);
    expect(log).toContain('path_action=labeled');
    expect(log).toContain('label=bug');
    expect(runner.triggered.filter((t) => t.runId === run.id)).toEqual([{ event: 'issues', action: 'labeled', runId: run.id, path: '.github/workflows/labeled.yml' }]);

    // The run is a run like a dispatched one: its webhooks and the REST listing name the event.
    const hooks = emu.webhooks.deliveries.filter((d) => d.event === 'workflow_run' && (d.payload.workflow_run as { id: number }).id === run.id);
    expect(hooks.map((d) => d.action)).toEqual(['requested', 'in_progress', 'completed']);
    expect(hooks.every((d) => (d.payload.workflow_run as { event: string }).event === 'issues')).toBe(true);
    expect(emu.webhooks.deliveries.some((d) => d.event === 'workflow_job' && (d.payload.workflow_job as { run_id: number }).run_id === run.id)).toBe(true);
    const listed = (await as('alice').rest.actions.listWorkflowRunsForRepo({ ...o, event: 'issues' })).data;
    expect(listed.total_count).toBe(4); // opened: opened.yml, list.yml; labeled: labeled.yml, list.yml
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('a status a job posted with its GITHUB_TOKEN starts nothing and is listed as skipped; one a person posted starts the workflow', async () => {
    const o = await repo('statuses', {
      '.github/workflows/poster.yml': `name: poster
on: workflow_dispatch
permissions: { statuses: write }
jobs:
  post:
    runs-on: ubuntu-latest
    steps:
      - run: |
          curl -sSf -X POST -H "authorization: token \${{ secrets.GITHUB_TOKEN }}" -H 'content-type: application/json' \\
            -d '{"state":"success","context":"bot"}' "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/statuses/$GITHUB_SHA"
`,
      '.github/workflows/on-status.yml': showing('on-status', 'on:\n  status:'),
    });
    const dispatched = (await as('alice').rest.actions.createWorkflowDispatch({ ...o, workflow_id: 'poster.yml', ref: 'main', return_run_details: true } as never)).data as unknown as { workflow_run_id: number };
    await runner.idle();
    const poster = runner.store.runs.get(dispatched.workflow_run_id)!;
    expect(poster.conclusion, runner.logs(poster.id)).toBe('success');
    expect(emu.webhooks.deliveries.some((d) => d.event === 'status' && (d.payload.sender as { login: string }).login === 'github-actions[bot]')).toBe(true);
    expect(runsOf(o).filter((r) => r.event === 'status')).toEqual([]);
    expect(runner.skippedTriggers).toContainEqual({
      event: 'status',
      sender: 'github-actions[bot]',
      reason: expect.stringContaining('GITHUB_TOKEN') as unknown as string,
      workflows: ['.github/workflows/on-status.yml'],
    });

    emu.store.setRole('acme', 'statuses', 'ci-bot', 'write');
    await as('ci-bot').rest.repos.createCommitStatus({ ...o, sha: poster.headSha, state: 'success', context: 'ci' });
    await runner.idle();
    const started = runsOf(o).filter((r) => r.event === 'status');
    expect(started.map((r) => [r.path, r.actor.login, r.conclusion])).toEqual([['.github/workflows/on-status.yml', 'ci-bot', 'success']]);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('workflow_run completed starts the workflow listening to that workflow by name', async () => {
    const o = await repo('chain', {
      '.github/workflows/build.yml': showing('build', 'on: workflow_dispatch'),
      '.github/workflows/after-build.yml': showing(
        'after build',
        'on:\n  workflow_run:\n    workflows: [build]\n    types: [completed]',
        '      - run: echo "upstream=${{ github.event.workflow_run.conclusion }} of ${{ github.event.workflow_run.name }}"\n',
      ),
      '.github/workflows/after-other.yml': showing('after other', 'on:\n  workflow_run:\n    workflows: [other]\n    types: [completed]'),
    });
    await as('alice').rest.actions.createWorkflowDispatch({ ...o, workflow_id: 'build.yml', ref: 'main' });
    await runner.idle();
    const after = runsOf(o).filter((r) => r.path === '.github/workflows/after-build.yml');
    expect(after).toHaveLength(1);
    expect(after[0]!.event).toBe('workflow_run');
    expect(after[0]!.conclusion, runner.logs(after[0]!.id)).toBe('success');
    expect(runner.logs(after[0]!.id)).toContain('upstream=success of build');
    expect(runner.logs(after[0]!.id)).toContain('event=workflow_run ref=refs/heads/main');
    expect(runsOf(o).some((r) => r.path === '.github/workflows/after-other.yml')).toBe(false);
    // after-build's own completion starts nothing (no workflow listens to "after build").
    expect(runsOf(o)).toHaveLength(2);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('push runs the pushed commit’s workflows on its ref, with branch filters', async () => {
    const o = await repo('pushes', {
      '.github/workflows/main-only.yml': showing('main only', 'on:\n  push:\n    branches: [main]'),
      '.github/workflows/not-main.yml': showing('not main', 'on:\n  push:\n    branches-ignore: [main]'),
      '.github/workflows/tags.yml': showing('tags', 'on:\n  push:\n    tags: ["v*"]'),
    });
    const alice = as('alice');
    const commit = (await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'src/a.txt', message: 'Add a', content: Buffer.from('a\n').toString('base64'), branch: 'main' })).data.commit.sha!;
    await runner.idle();
    expect(runsOf(o).map((r) => r.path)).toEqual(['.github/workflows/main-only.yml']);
    const run = runsOf(o)[0]!;
    expect(run.displayTitle).toBe('Add a');
    expect(runner.logs(run.id)).toContain(`event=push ref=refs/heads/main ref_name=main sha=${commit}`);

    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: commit });
    await alice.rest.git.createRef({ ...o, ref: 'refs/tags/v1', sha: commit });
    await runner.idle();
    expect(runsOf(o).map((r) => `${r.path}@${r.ref}`).sort()).toEqual([
      '.github/workflows/main-only.yml@refs/heads/main',
      '.github/workflows/not-main.yml@refs/heads/feature',
      '.github/workflows/tags.yml@refs/tags/v1',
    ]);
    for (const r of runsOf(o)) expect(r.conclusion, runner.logs(r.id)).toBe('success');
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('pull_request runs on the test merge commit refs/pull/<n>/merge', async () => {
    const o = await repo('pulls', {
      '.github/workflows/pr.yml': showing('pr', 'on: pull_request', '      - uses: actions/checkout@v5\n      - run: cat feature.txt README.md\n'),
      '.github/workflows/labeled-pr.yml': showing('labeled pr', 'on:\n  pull_request:\n    types: [labeled]\n    branches: [release]'),
    });
    const alice = as('alice');
    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: await headOf(o) });
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'feature.txt', message: 'Feature', content: Buffer.from('feature!\n').toString('base64'), branch: 'feature' });
    const pull = (await alice.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'Add the feature' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: pull.number, labels: ['x'] });
    await runner.idle();
    const runs = runsOf(o);
    expect(runs.map((r) => r.path)).toEqual(['.github/workflows/pr.yml']);
    const run = runs[0]!;
    expect(run.conclusion, runner.logs(run.id)).toBe('success');
    expect(run.displayTitle).toBe('Add the feature');
    expect(run.headBranch).toBe('feature');
    const merge = (await emu.git(o.owner, o.repo).resolveRef(`refs/pull/${pull.number}/merge`))!;
    expect(runner.logs(run.id)).toContain(`event=pull_request ref=refs/pull/${pull.number}/merge ref_name=${pull.number}/merge sha=${merge}`);
    expect(runner.logs(run.id)).toContain('head_ref=feature base_ref=main');
    expect(runner.logs(run.id)).toContain('feature!');
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  // Changelog 2025-11-07 ("Actions pull_request_target and environment branch protections
  // changes"): the default branch's workflow file, GITHUB_REF and GITHUB_SHA, whatever the base;
  // docs: branches named like SHAs may not trigger it at all.
  it('pull_request_target runs on the default branch whatever the base, and not for a head branch named like a SHA', async () => {
    const target = (label: string) => showing(label, 'on:\n  pull_request_target:\n    branches: [release]');
    const o = await repo('targets', { '.github/workflows/target.yml': target('from main') });
    const alice = as('alice');
    const main = await headOf(o);
    // The release branch carries an older copy of the workflow: GitHub no longer runs it.
    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/release', sha: main });
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: '.github/workflows/target.yml', message: 'old', branch: 'release', content: Buffer.from(target('from release')).toString('base64'), sha: ((await alice.rest.repos.getContent({ ...o, path: '.github/workflows/target.yml', ref: 'release' })).data as { sha: string }).sha });
    const release = await headOf(o, 'release');
    for (const branch of ['fix', 'deadbeef1234']) {
      await alice.rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: release });
      await alice.rest.repos.createOrUpdateFileContents({ ...o, path: `${branch}.txt`, message: branch, content: Buffer.from('x\n').toString('base64'), branch });
      await alice.rest.pulls.create({ ...o, head: branch, base: 'release', title: `From ${branch}` });
    }
    await runner.idle();
    const runs = runsOf(o);
    expect(runs.map((r) => [r.workflowName, r.event, r.displayTitle])).toEqual([['from main', 'pull_request_target', 'From fix']]);
    expect(runner.logs(runs[0]!.id)).toContain(`event=pull_request_target ref=refs/heads/main ref_name=main sha=${main}`);
    expect(runner.logs(runs[0]!.id)).toContain('head_ref=fix base_ref=release');
    expect(runner.skippedTriggers.filter((t) => t.event === 'pull_request_target' && t.reason.includes('deadbeef1234'))).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('looks like a commit SHA') }),
    ]);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);

  it('a pull request with a merge conflict starts no pull_request workflow for any activity; pull_request_target and comments still start theirs', async () => {
    const o = await repo('conflicts', {
      '.github/workflows/pr.yml': showing('pr', 'on:\n  pull_request:\n    types: [labeled, closed]'),
      '.github/workflows/target.yml': showing('target', 'on:\n  pull_request_target:\n    types: [labeled, closed]'),
      '.github/workflows/comment.yml': showing('comment', 'on: issue_comment'),
    });
    const alice = as('alice');
    const readme = async (branch: string) => (await alice.rest.repos.getContent({ ...o, path: 'README.md', ref: branch })).data as { sha: string };
    await alice.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: await headOf(o) });
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'README.md', message: 'mine', content: Buffer.from('# feature\n').toString('base64'), branch: 'feature', sha: (await readme('feature')).sha });
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'README.md', message: 'theirs', content: Buffer.from('# main\n').toString('base64'), branch: 'main', sha: (await readme('main')).sha });
    const pull = (await alice.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'Conflicting' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: pull.number, labels: ['go'] });
    await alice.rest.issues.createComment({ ...o, issue_number: pull.number, body: 'hello' });
    await alice.rest.pulls.update({ ...o, pull_number: pull.number, state: 'closed' });
    await runner.idle();
    expect(runsOf(o).map((r) => `${r.workflowName} ${r.event}`).sort()).toEqual(['comment issue_comment', 'target pull_request_target', 'target pull_request_target']);
    expect(runner.skippedTriggers.filter((t) => t.event === 'pull_request' && t.reason.includes(`#${pull.number} has a merge conflict`)).map((t) => t.action)).toEqual(['opened', 'labeled', 'closed']);
    expect(runner.errors).toEqual([]);
    emu.assertNoViolations();
  }, 60_000);
});

describe('on: filters', () => {
  it('reads the three forms, types and branch globs', () => {
    expect(workflowListens('issues', 'issues', { action: 'opened' })).toBe(true);
    expect(workflowListens(['push', 'issues'], 'issues', {})).toBe(true);
    expect(workflowListens({ issues: null }, 'issues', { action: 'closed' })).toBe(true);
    expect(workflowListens({ issues: { types: 'opened' } }, 'issues', { action: 'closed' })).toBe(false);
    expect(workflowListens({ pull_request: null }, 'pull_request', { action: 'labeled', pull_request: { base: { ref: 'main' } } })).toBe(false);
    expect(workflowListens({ workflow_run: { workflows: ['ci'] } }, 'workflow_run', { action: 'in_progress', workflow_run: { name: 'ci' } })).toBe(false);
    expect(workflowListens({ push: { 'branches-ignore': ['docs/**'] } }, 'push', { ref: 'refs/heads/docs/a/b' })).toBe(false);
    // Only branches and tags are pushed to in Actions' sense: a ref elsewhere (baton's claims) starts nothing.
    expect(workflowListens(['push'], 'push', { ref: 'refs/baton/leases/fix-1-1/3' })).toBe(false);
    expect(workflowListens(['push'], 'push', { ref: 'refs/heads/main' })).toBe(true);
    expect(globRegex('release/*').test('release/1.0')).toBe(true);
    expect(globRegex('release/*').test('release/1/2')).toBe(false);
    expect(matchesFilter(['feature/**', '!feature/wip'], 'feature/wip')).toBe(false);
    expect(matchesFilter(['v[12].*'], 'v2.0')).toBe(true);
  });
});
