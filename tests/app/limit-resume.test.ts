// Limits keep the work, end to end on the emulator with the real worker: an agent stopped at
// its turn limit, whose spend then stops the run at its budget, has its partial work kept on its
// step ref (read back), the record says which files and which commit, a raise past the
// workflow's cap is refused naming it, and `/baton retry <step> --budget +$…` continues from
// the checkpoint — the prompt says so — to a pull request holding both attempts' work.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const BUILD = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code, max-turns: 10 } }
budget:
  max-cost-usd: 0.02
  raise-to: { cost-usd: 0.5, turns: 40 }
steps:
  - { id: implement, agent: coder, prompt: "Build it", retries: 1 }
  - id: pr
    pull-request: { title: "Build for #\${{ issue.number }}" }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const workerRuns = (h: Harness) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml'));

describe('app: a limit keeps the work, and `/baton retry --budget` resumes from it', () => {
  it('keeps what the stopped agent wrote, says so, refuses a raise past the cap, and finishes from the checkpoint', async () => {
    h = await startHarness({
      files: { '.agents/workflows/build.yml': BUILD },
      agents: {
        implement: [
          { write: { 'half.txt': 'half done\n' }, maxTurnsHit: true, usage: { costUsd: 0.05 } },
          { write: { 'done.txt': 'done\n' }, usage: { costUsd: 0.01 } },
        ],
      },
    });
    const n = await openLabelled(h, 'baton:build');
    const runId = `build-${n}-1`;
    await h.settle();

    // Stopped at its turn limit, then at the run's budget: the work is on the step ref, and the record says what and where.
    const stopped = await h.record(n);
    expect(stopped).toContain('budget: max-cost-usd $0.02 reached');
    const [first] = workerRuns(h);
    const kept = (await h.as('alice').rest.git.getRef({ ...o, ref: `baton/steps/${runId}/implement` })).data.object.sha;
    expect((await h.as('alice').rest.git.getTree({ ...o, tree_sha: kept })).data.tree.map((t) => t.path)).toContain('half.txt');
    expect(kept).not.toBe(String(first!.inputs.base));
    expect(stopped).toContain(`stopped by its turn limit; kept 1 file (\`half.txt\`) in commit \`${kept.slice(0, 7)}\``);
    expect(stopped).toContain(`/baton retry implement --turns +20`);

    // Past the workflow's cap: refused, naming it; nothing runs.
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry implement --budget +$1' });
    await h.settle();
    expect((await h.comments(n)).at(-1)).toContain('past the workflow\'s cap `budget.raise-to.cost-usd` ($0.5)');
    expect(workerRuns(h)).toHaveLength(1);

    // A hostile amount: the grammar refuses it before anything else.
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry implement --budget +$abc' });
    await h.settle();
    expect((await h.comments(n)).at(-1)).toContain('`+$abc` is not one');

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry implement --budget +$0.40' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    const second = workerRuns(h).sort((x, y) => x.id - y.id)[1]!;
    expect(second.displayTitle).toMatch(/ implement #2$/);
    expect(String(second.inputs.base)).toBe(kept);
    const resumed = h.agentCalls().at(-1)!;
    expect(resumed.prompt).toContain('## Continuing from a checkpoint');
    expect(resumed.prompt).toContain('was stopped by its turn limit');
    const [pull] = await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 });
    const tree = (await h.as('alice').rest.git.getTree({ ...o, tree_sha: pull!.head.sha })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['half.txt', 'done.txt']));
  }, 120_000);
});
