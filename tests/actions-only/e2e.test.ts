// Actions-only mode end to end, no app process: `baton init --mode actions` output in the
// repository → an issue opened with a label starts baton.yml (mode run) → the worker workflow (mode agent with
// the fake claude, which also edits dotfiles) → its apply job (mode apply) → the reviewer agent (fake codex) → CI as
// a commit status an outside CI posts → a draft PR, and the status comment says so. The first
// test runs every job in the runner's sandbox (GitHub's runner user, namespaces of the job's
// own), so the worker workflow's fence step and sudo drop run for real.
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES } from '../emulator/readings.ts';
import { initFiles, startActionsOnly, type ActionsOnly } from './harness.ts';

const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents:
  coder: { uses: claude-code }
  reviewer: { uses: codex }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}: \${{ issue.title }}"
  - id: review
    review: { agent: reviewer, max-rounds: 1, fix: implement }
  - id: ci
    checks: { names: [test] }
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

const AGENTS = [
  // Hidden files too: the result artifact must carry them (upload-artifact drops them by default).
  { write: { 'src/fix.txt': 'fixed\n', '.gitignore': 'dist/\n', '.config/lint.json': '{"strict":true}\n' }, reply: { done: true } },
  { reply: { approved: true, summary: 'The fix is right.', comments: [] } },
];

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const o = { owner: 'acme', repo: 'widgets' };

/** The run's status comment on a thread (written with the job's GITHUB_TOKEN). */
async function recordOf(number: number): Promise<string> {
  const comments = (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: number })).data;
  return comments.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
}

describe('Actions-only mode on the emulator', () => {
  it('runs label → run → worker → apply → review → checks → PR from the files baton init wrote', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/quick.yml': QUICK }, agentScript: AGENTS, sandbox: true });
    expect(Object.keys(h.initFiles).sort()).toEqual(['.agents/baton-init.json', '.agents/workflows/fix-issue.yml', '.github/workflows/baton-worker.yml', '.github/workflows/baton.yml']);
    // As a repository admin must (off by default): GitHub Actions may open pull requests.
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
    const alice = h.as('alice');
    // Opened with its label: GitHub sends issues.opened and issues.labeled; one run starts.
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.', labels: ['baton:quick'] })).data;
    const runId = `quick-${issue.number}-1`;
    const record = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';

    // CI is outside baton: once the checks step waits, a CI bot reports `test` on the run branch head.
    await h.settle();
    if (process.env.DEBUG_E2E) {
      console.log(await record());
      for (const r of h.runner.store.runs.values()) console.log(r.path, r.event, r.displayTitle, r.conclusion, '\n', h.runner.logs(r.id).slice(0, 6000));
    }
    const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    await h.as('ci-bot').rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'test' });
    await h.settle();

    const body = await record();
    expect(body).toContain(`run \`${runId}\` — succeeded`);
    const pulls = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.head.ref).toBe(`baton/${runId}`);
    expect(pulls[0]!.draft).toBe(true);
    const fix = await alice.rest.repos.getContent({ ...o, path: 'src/fix.txt', ref: pulls[0]!.head.sha });
    expect(Buffer.from((fix.data as { content: string }).content, 'base64').toString()).toBe('fixed\n');
    for (const [path, text] of [['.gitignore', 'dist/\n'], ['.config/lint.json', '{"strict":true}\n']]) {
      const got = await alice.rest.repos.getContent({ ...o, path: path!, ref: pulls[0]!.head.sha });
      expect(Buffer.from((got.data as { content: string }).content, 'base64').toString(), path).toBe(text);
    }

    // What ran: baton.yml for the label (and the CI status), the worker twice (implement, review) with its apply job.
    const runs = [...h.runner.store.runs.values()];
    const workers = runs.filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers.map((r) => r.displayTitle).sort()).toEqual([`baton ${runId} implement #1`, `baton ${runId} review[review] #1`].sort());
    for (const w of workers) {
      const log = h.runner.logs(w.id);
      expect(w.conclusion, log).toBe('success');
      expect(w.jobs.map((j) => `${j.key}:${j.conclusion}`).sort()).toEqual(['agent:success', 'apply:success']);
      // The runner's sandbox: the job ran as GitHub's runner user, the fence step set the whole fence up, sudo was dropped.
      expect(log).toContain('The job runs as runner');
      expect(log).toContain('::notice::baton sandbox: in force: agent-user, packet-filter, resource-limits');
      expect(w.jobs.find((j) => j.key === 'agent')!.steps.find((s) => s.name.startsWith('Drop sudo'))?.conclusion).toBe('success');
    }
    const started = h.runner.triggered.map((s) => `${s.event}.${s.action ?? ''}`);
    expect(started.filter((s) => s.startsWith('issues.'))).toEqual(['issues.labeled']);
    expect(runs.filter((r) => r.path === '.github/workflows/baton.yml' && r.event === 'issues')).toHaveLength(1);
    expect(started).toContain('status.');
    // baton's own comments, labels and pushes (GITHUB_TOKEN) started no workflow.
    expect(h.runner.skippedTriggers.filter((s) => s.sender === 'github-actions[bot]').length).toBeGreaterThan(0);
    for (const r of runs.filter((x) => x.path === '.github/workflows/baton.yml')) expect(r.conclusion, h.runner.logs(r.id)).toBe('success');

    // The agent jobs' token is read-only: a branch write with it is refused.
    const readOnly = h.probes.filter((p) => p.permissions.contents === 'read');
    expect(readOnly.length).toBeGreaterThanOrEqual(workers.length);
    for (const p of readOnly) expect(p.writeStatus).toBe(403);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it.each([
    ['with `protected-paths: allow`, GitHub refuses it', true, "GitHub refused to write .github/workflows/x.yml (403 Resource not accessible by integration): "],
    ['without it, baton refuses it', false, "the worker's result changes protected paths: .github/workflows/x.yml (a GitHub Actions workflow). These steer later workflows and agents, so baton does not write them unless the step lists them in `protected-paths` (or sets `protected-paths: allow`); for the workflow files that is not enough: "],
  ])('records an agent writing a workflow file as refused, not crashed (%s), with the one remedy a GITHUB_TOKEN run has; every job succeeds', async (_, allow, why) => {
    const CI = `name: ci-edit
on: { labels: ["baton:ci"] }
agents: { coder: { uses: claude-code } }
steps:
  # Opted in to protected paths: what is tested is GitHub's own refusal of workflow files.
  - { id: edit, agent: coder, prompt: "add a workflow", retries: 0${allow ? ', protected-paths: allow' : ''} }
  - id: pr
    pull-request: { title: "CI" }
`;
    // Where GitHub refuses the change is pinned: the App tests go through every reading.
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/ci-edit.yml': CI }, agentScript: [{ write: { '.github/workflows/x.yml': 'on: push\njobs: {}\n' } }], readings: { workflowRefusalAt: 'trees' } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Add CI', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ci'] });
    await h.settle();
    const record = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    expect(record).toContain(`run \`ci-edit-${issue.number}-1\` — failed`);
    expect(record).toContain(
      `refused after 1 attempt: ${why}baton writes with this repository's GITHUB_TOKEN, which can never write workflow files: let baton act as a GitHub App that has the \`workflows\` permission (\`baton init --mode actions --app-token\`), or commit the workflow change yourself`,
    );
    expect(record).not.toContain('crashed');
    expect(record).not.toContain('grant it to the baton App');
    // The refusal is an attempt failure, not a crash: the apply job and baton.yml end well.
    for (const r of h.runner.store.runs.values()) expect(r.conclusion, `${r.path}\n${h.runner.logs(r.id)}`).toBe('success');
    expect((await alice.rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('says which repository setting to change when GitHub refuses the PR from GITHUB_TOKEN, and ends the run (no wedge)', async () => {
    const SHORT = `name: short
on: { labels: ["baton:short"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}" }
`;
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/short.yml': SHORT }, agentScript: [AGENTS[0]] });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:short'] });
    await h.settle();
    const runId = `short-${issue.number}-1`;
    const record = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.body?.includes('baton:record'))?.body ?? '';
    expect(record).toContain(`run \`${runId}\` — failed`);
    expect(record).toContain('GitHub Actions is not permitted to create or approve pull requests.');
    expect(record).toContain('Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"');
    expect(record).toContain('`/baton retry pr`');
    expect((await alice.rest.pulls.list({ ...o, state: 'all' })).data).toEqual([]);
    // The work is kept on the run branch, and every baton job ended cleanly.
    expect((await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).status).toBe(200);
    for (const r of h.runner.store.runs.values()) expect(r.conclusion, h.runner.logs(r.id)).toBe('success');
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  // Whether the CI run a GITHUB_TOKEN dispatched sends baton.yml a workflow_run is undocumented
  // (readings.ts): when it does not, the scheduled sweep reads the head's check runs.
  it.each(READING_VALUES.workflowRunAfterTokenDispatch)('gates on an Actions CI workflow: checks.workflow dispatches it on the run branch, and baton.yml hears it finished (workflow_run after a GITHUB_TOKEN dispatch: %s)', async (workflowRunAfterTokenDispatch) => {
    const ci = `name: CI
on: workflow_dispatch
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: test -f src/fix.txt
`;
    const quick = `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
  - id: ci
    checks: { names: [test], workflow: ci.yml }
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;
    const init = await initFiles(['--mode', 'actions', '--workflows', 'fix-issue']);
    // What docs/actions-only.md tells users to add: check events of Actions' own suites start no workflow.
    const batonYml = init['.github/workflows/baton.yml']!.replace('  status:\n', '  status:\n  workflow_run: { workflows: [CI], types: [completed] }\n');
    expect(batonYml).toContain('workflow_run');
    h = await startActionsOnly({
      init: ['--mode', 'actions', '--workflows', 'fix-issue'],
      files: { '.agents/workflows/quick.yml': quick, '.github/workflows/ci.yml': ci, '.github/workflows/baton.yml': batonYml },
      agentScript: [{ write: { 'src/fix.txt': 'fixed\n' }, reply: { done: true } }],
      readings: { workflowRunAfterTokenDispatch },
    });
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:quick'] });
    const runId = `quick-${issue.number}-1`;
    await h.settle();
    const heard = h.runner.triggered.some((t) => t.event === 'workflow_run' && t.path === '.github/workflows/baton.yml');
    expect(heard).toBe(workflowRunAfterTokenDispatch === 'fires');
    if (!heard) {
      // Nothing told baton.yml that CI finished: the next scheduled sweep finds it.
      expect(await recordOf(issue.number)).toMatch(/\| 🔄 \| ci \| waiting for checks \|/);
      await h.runner.schedule('acme', 'widgets');
      await h.settle();
    }

    const body = await recordOf(issue.number);
    expect(body, body).toContain(`run \`${runId}\` — succeeded`);
    const runs = [...h.runner.store.runs.values()];
    const ciRuns = runs.filter((r) => r.workflowName === 'CI');
    expect(ciRuns.map((r) => [r.event, r.headBranch, r.conclusion])).toEqual([['workflow_dispatch', `baton/${runId}`, 'success']]);
    // The CI job's check_run / check_suite events did not start baton.yml: GitHub starts no workflow for Actions' own suites.
    expect(h.runner.skippedTriggers.some((s) => s.event === 'check_suite' && s.workflows.includes('.github/workflows/baton.yml') && s.reason.includes('GitHub Actions'))).toBe(true);
    expect((await alice.rest.pulls.list({ ...o, state: 'open' })).data.map((p) => p.head.ref)).toEqual([`baton/${runId}`]);
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('without the BATON_STATE_SECRET secret, says so in the thread and starts nothing (no unsigned state)', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/quick.yml': QUICK }, agentScript: AGENTS, missingSecrets: ['BATON_STATE_SECRET'] });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:quick'] });
    await h.settle();
    const bodies = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.map((c) => c.body ?? '');
    expect(bodies.filter((b) => b.includes('baton needs the repository secret `BATON_STATE_SECRET`'))).toHaveLength(1);
    expect(bodies.some((b) => b.includes('baton:record'))).toBe(false);
    const runs = [...h.runner.store.runs.values()];
    expect(runs.some((r) => r.path === '.github/workflows/baton-worker.yml')).toBe(false);
    expect(runs.some((r) => r.conclusion === 'failure' && h!.runner.logs(r.id).includes('BATON_STATE_SECRET'))).toBe(true);
    h.emu.assertNoViolations();
  }, 60_000);
});

