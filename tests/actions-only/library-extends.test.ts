// A workflow that `extends:` one of baton's library workflows, run in Actions-only mode:
// the route, run, agent and apply modes of the bundled Action all load it (the library
// ships next to the bundle in the Action's checkout), and the run ends as the library says,
// its `label` step adding the labels from the Action's own job.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, startActionsOnly, type ActionsOnly } from './harness.ts';

/**
 * The Action as a runner gets it for `uses: baton-dev/baton@v1`: the repository's files at
 * the tag, without node_modules or anything a build leaves untracked. Only what the bundle
 * may need is copied (action.yml, dist/, the library, the schema): no sources to fall back on.
 */
function actionCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-action-'));
  for (const path of ['action.yml', 'package.json', 'dist', 'workflows-library', 'schema']) cpSync(join(PROJECT_ROOT, path), join(dir, path), { recursive: true });
  return dir;
}

const MY_TRIAGE = `extends: triage
name: my-triage
on: { labels: ["baton:my-triage"] }
inputs:
  labels: { type: string, default: "bug, question" }
`;

let h: ActionsOnly | undefined;
let actionDir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (actionDir) rmSync(actionDir, { recursive: true, force: true });
  actionDir = undefined;
});

const o = { owner: 'acme', repo: 'widgets' };

describe('Actions-only mode with a workflow extending the library', () => {
  it('runs every step of the library workflow under the extending name', async () => {
    actionDir = actionCheckout();
    h = await startActionsOnly({
      actionDir,
      init: ['--mode', 'actions', '--workflows', 'fix-issue'],
      files: { '.agents/workflows/my-triage.yml': MY_TRIAGE },
      agentScript: [
        { output: { summary: 'The app crashes on start.', labels: ['bug'], questions: [] } },
        { output: { labels: ['Bug', 'question', 'made-up'], kind: 'bug', priority: 'high' } },
      ],
    });
    const alice = h.as('alice');
    await alice.rest.issues.createLabel({ ...o, name: 'bug' });
    const issue = (await alice.rest.issues.create({ ...o, title: 'Crash on start', body: 'It crashes.', labels: ['baton:my-triage'] })).data;
    await h.settle();
    const runId = `my-triage-${issue.number}-1`;
    const comments = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data;
    const record = comments.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    const all = comments.map((c) => c.body).join('\n---\n');
    expect(record, all).toContain(`run \`${runId}\` — succeeded`);
    // The library's steps ran (read, then classify; ask skipped with no questions).
    const workers = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers.map((r) => r.displayTitle).sort()).toEqual([`baton ${runId} classify #1`, `baton ${runId} read #1`]);
    for (const r of h.runner.store.runs.values()) expect(r.conclusion, `${r.path}\n${h.runner.logs(r.id)}`).toBe('success');
    expect(h.runner.errors).toEqual([]);
    // The library's last step, in the Action too: the labels the repository has are added, one of
    // the step's list it lacks is not created, a made-up one (not in the list) is dropped.
    expect((await alice.rest.issues.listLabelsOnIssue({ ...o, issue_number: issue.number })).data.map((l) => l.name).sort()).toEqual(['baton:my-triage', 'bug']);
    expect((await alice.rest.issues.listLabelsForRepo({ ...o, per_page: 100 })).data.map((l) => l.name)).not.toContain('made-up');
    expect(record).toContain("added `bug`; not labels of this repository (not created): `question`; not in the step's `labels`, so not added: `made-up`");
  }, 60_000);
});
