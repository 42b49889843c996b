// Actions-only mode end to end, no app process: `baton init --mode actions` output in the
// repository → an issue opened with a label starts baton.yml (mode run) → the worker workflow (mode agent with
// the fake claude) → its apply job (mode apply) → the reviewer agent (fake codex) → CI as
// a commit status an outside CI posts → a draft PR, and the status comment says so.
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

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
  { write: { 'src/fix.txt': 'fixed\n' }, reply: { done: true } },
  { reply: { approved: true, summary: 'The fix is right.', comments: [] } },
];

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const o = { owner: 'acme', repo: 'widgets' };

describe('Actions-only mode on the emulator', () => {
  it('runs label → run → worker → apply → review → checks → PR from the files baton init wrote', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/quick.yml': QUICK }, agentScript: AGENTS });
    expect(Object.keys(h.initFiles).sort()).toEqual(['.agents/workflows/fix-issue.yml', '.github/workflows/baton-worker.yml', '.github/workflows/baton.yml']);
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

    // What ran: baton.yml for the label (and the CI status), the worker twice (implement, review) with its apply job.
    const runs = [...h.runner.store.runs.values()];
    const workers = runs.filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers.map((r) => r.displayTitle).sort()).toEqual([`baton ${runId} implement #1`, `baton ${runId} review[review] #1`].sort());
    for (const w of workers) {
      expect(w.conclusion, h.runner.logs(w.id)).toBe('success');
      expect(w.jobs.map((j) => `${j.key}:${j.conclusion}`).sort()).toEqual(['agent:success', 'apply:success']);
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
});
