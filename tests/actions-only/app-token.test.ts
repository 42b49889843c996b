// Actions-only mode with `baton init --mode actions --app-token`: the run and apply jobs act
// with an installation token of the repository's own App (actions/create-github-app-token),
// so what baton does — its status comment, check runs, branch pushes, the PR — DOES start
// workflows, unlike GITHUB_TOKEN. baton.yml then hears baton's own activity: it must ignore
// it (no loops, nothing done twice).
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from './harness.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';

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
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}" }
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

describe('Actions-only mode with --app-token', () => {
  it("acts as the App, whose events start workflows, and ignores its own activity: nothing runs twice", async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions', '--app-token', '--workflows', 'fix-issue'], files: { '.agents/workflows/quick.yml': QUICK }, agentScript: AGENTS, appSecrets: true });
    expect(h.initFiles['.github/workflows/baton.yml']).toContain(`uses: ${pinnedUses(GITHUB_ACTION_PINS.appToken)}`);
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:quick'] });
    const runId = `quick-${issue.number}-1`;
    await h.settle();
    const runs = [...h.runner.store.runs.values()];
    if (process.env.DEBUG_E2E) for (const r of runs) console.log(r.path, r.event, r.actor.login, r.displayTitle, r.conclusion, '\n', h.runner.logs(r.id).slice(0, 4000));

    // The run went through as the App.
    const comments = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number, per_page: 100 })).data;
    const records = comments.filter((c) => c.body?.includes('baton:record'));
    expect(records.map((c) => c.user?.login)).toEqual(['baton[bot]']);
    expect(records[0]!.body).toContain(`run \`${runId}\` — succeeded`);
    const pulls = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pulls.map((p) => [p.user?.login, p.head.ref])).toEqual([['baton[bot]', `baton/${runId}`]]);

    // baton's own events did start baton.yml (an App token's events do) …
    const own = h.runner.triggered.filter((t) => runs.find((r) => r.id === t.runId)?.actor.login === 'baton[bot]');
    expect(own.length).toBeGreaterThan(0);
    // … and each did nothing: the route job skips baton's comments and check runs; its check
    // suite (the route cannot tell whose it is without a token) is dropped by the run job.
    for (const t of own.filter((x) => x.path === '.github/workflows/baton.yml')) {
      const r = runs.find((x) => x.id === t.runId)!;
      const jobs = r.jobs.map((j) => `${j.key}:${j.conclusion}`);
      const why = `${t.event}.${t.action ?? ''}\n${h.runner.logs(r.id)}`;
      // A suite on a commit a claim ref points at (refs/baton/leases/…, before the run branch moves
      // to it) names no baton branch: the route drops it before the run job.
      if (t.event === 'check_suite') expect(h.runner.logs(r.id), why).toMatch(/is baton's own check suite; nothing to do|this check_suite event concerns no baton run/);
      else expect(jobs, why).toEqual(['route:success', 'run:skipped']);
    }
    expect(own.map((t) => t.event)).toEqual(expect.arrayContaining(['issue_comment', 'check_run', 'check_suite']));
    // Nothing twice: one worker run per attempt, no reply posted twice.
    const workers = runs.filter((r) => r.path === '.github/workflows/baton-worker.yml').map((r) => r.displayTitle).sort();
    expect(workers).toEqual([`baton ${runId} implement #1`, `baton ${runId} review[review] #1`].sort());
    const bodies = comments.map((c) => c.body ?? '');
    expect(new Set(bodies).size).toBe(bodies.length);
    for (const r of runs) expect(r.conclusion, `${r.path} ${r.event}\n${h.runner.logs(r.id)}`).toBe('success');
    expect(h.runner.errors).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);
});
