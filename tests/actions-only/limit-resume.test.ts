// Actions-only mode: the same promise as the App's (tests/app/limit-resume.test.ts) through
// baton.yml's jobs — the apply job keeps a turn-limited agent's work on its step ref, the record
// says so, and `/baton retry <step> --budget +$…` in the thread continues from that checkpoint.
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const BUILD = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code, max-turns: 10 } }
budget:
  max-cost-usd: 0.02
  raise-to: { cost-usd: 0.5 }
steps:
  - { id: implement, agent: coder, prompt: "Build it", retries: 1 }
`;

let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('actions-only: a limit keeps the work, and /baton retry --budget resumes from it', () => {
  it('keeps the stopped agent\'s work on its step ref, says so, and finishes from the checkpoint after the raise', async () => {
    h = await startActionsOnly({
      init: ['--mode', 'actions', '--workflows', 'fix-issue'],
      files: { '.agents/workflows/build.yml': BUILD },
      agentScript: [{ write: { 'half.txt': 'half done\n' }, maxTurnsHit: true, usage: { costUsd: 0.05 } }, { write: { 'done.txt': 'done\n' }, usage: { costUsd: 0.01 } }],
    });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Build', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:build'] });
    await h.settle();
    const runId = `build-${issue.number}-1`;
    const record = async () => (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';

    const stopped = await record();
    expect(stopped).toContain('budget: max-cost-usd $0.02 reached');
    const kept = (await alice.rest.git.getRef({ ...o, ref: `baton/steps/${runId}/implement` })).data.object.sha;
    expect((await alice.rest.git.getTree({ ...o, tree_sha: kept })).data.tree.map((t) => t.path)).toContain('half.txt');
    expect(stopped).toContain(`stopped by its turn limit; kept 1 file (\`half.txt\`) in commit \`${kept.slice(0, 7)}\``);

    await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: '/baton retry implement --budget +$0.40' });
    await h.settle();
    expect(await record()).toContain(`run \`${runId}\` — succeeded`);
    const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const tree = (await alice.rest.git.getTree({ ...o, tree_sha: head })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['half.txt', 'done.txt']));
    expect(h.agentCalls()).toBe(2);
  }, 180_000);
});
