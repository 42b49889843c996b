// A `label` step on GitHub: the labels an agent chose that the step lists are added to the
// issue when the repository has them, in the repository's spelling; a name it made up is
// reported and never created, although GitHub's "add labels" call would create it (the
// emulator does as GitHub); a name the step does not list is dropped and reported.
import { afterEach, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import { appRequests, openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const SORT = `name: sort
on: { labels: ["baton:sort"] }
agents: { triager: { uses: claude-code } }
steps:
  - id: classify
    agent: triager
    writes: false
    prompt: "Classify issue #\${{ issue.number }}"
    outputs: { type: object, required: [labels], properties: { labels: { type: array, items: { type: string } } } }
  - id: apply
    name: Apply the labels
    label:
      add: \${{ steps.classify.outputs.labels }}
      labels: [bug, documentation, made-up-label]
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('app: label step', () => {
  it("adds the agent's labels the repository has, in its spelling, and reports the others without creating them", async () => {
    const chosen = ['BUG', 'documentation', 'bug', 'made-up-label', '@alice `see` <!-- baton:record -->'];
    h = await startHarness({ files: { '.agents/workflows/sort.yml': SORT }, agents: { classify: [{ output: { labels: chosen } }] } });
    const alice = h.as('alice');
    await alice.rest.issues.createLabel({ ...o, name: 'Bug', color: 'd73a4a' });
    await alice.rest.issues.createLabel({ ...o, name: 'Documentation', color: '0075ca' });
    const n = await openLabelled(h, 'baton:sort');
    await h.settle();

    const record = await h.record(n);
    expect(record).toContain(`run \`sort-${n}-1\` — succeeded`);
    const onIssue = (await alice.rest.issues.listLabelsOnIssue({ ...o, issue_number: n })).data.map((l) => l.name);
    expect(onIssue.sort()).toEqual(['Bug', 'Documentation', 'baton:sort']);
    // Made-up names never became labels of the repository.
    const repoLabels = (await alice.paginate(alice.rest.issues.listLabelsForRepo, { ...o, per_page: 100 })).map((l) => l.name);
    expect(repoLabels).not.toContain('made-up-label');
    expect(repoLabels.some((l) => l.startsWith('@alice'))).toBe(false);

    const state = readStateBlock(record, undefined, { unsignedRead: true });
    if (!state.ok) throw new Error(state.problem);
    expect(state.state.steps.find((s) => s.id === 'apply')?.outputs).toEqual({ applied: ['Bug', 'Documentation'], unknown: ['made-up-label'], dropped: ['@alice `see` <!-- baton:record -->'] });
    // Shown as code spans (no mention, no markup), the hidden marker look-alike taken out.
    expect(record).toContain("added `Bug`, `Documentation`; not labels of this repository (not created): `made-up-label`; not in the step's `labels`, so not added: `` @alice `see` ``");

    // One read of the repository's labels, one write of those it has.
    const calls = appRequests(h.emu).map((r) => r.route);
    expect(calls.filter((r) => r === 'GET /repos/{owner}/{repo}/labels')).toHaveLength(1);
    expect(calls.filter((r) => r === 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels')).toHaveLength(1);
    h.emu.assertNoViolations();
  }, 60_000);

  it('adds them once more, harmlessly, when the app died right after adding them, and records the step once', async () => {
    h = await startHarness({ files: { '.agents/workflows/sort.yml': SORT }, agents: { classify: [{ output: { labels: ['bug', 'made-up-label'] } }] } });
    const alice = h.as('alice');
    await alice.rest.issues.createLabel({ ...o, name: 'Bug' });
    // The app dies as soon as GitHub took the labels, in the repository's spelling, before its status comment says so.
    h.app.killAfterRequest((r) => /^POST \S+\/issues\/\d+\/labels \{"labels":\["Bug"\]\} -> 200$/.test(r));
    const n = await openLabelled(h, 'baton:sort');
    await h.settle();
    expect(h.app.dead).toBe(true);
    await h.restart();
    await h.settle();

    const record = await h.record(n);
    expect(record).toContain(`run \`sort-${n}-1\` — succeeded`);
    const state = readStateBlock(record, undefined, { unsignedRead: true });
    if (!state.ok) throw new Error(state.problem);
    expect(state.state.steps.find((s) => s.id === 'apply')?.outputs).toEqual({ applied: ['Bug'], unknown: ['made-up-label'], dropped: [] });
    expect((await alice.rest.issues.listLabelsOnIssue({ ...o, issue_number: n })).data.map((l) => l.name).sort()).toEqual(['Bug', 'baton:sort']);
    const labeled = h.emu.webhooks.deliveries.filter((d) => !d.redelivery && d.event === 'issues' && (d.payload as { action?: string; label?: { name?: string } }).action === 'labeled' && (d.payload as { label?: { name?: string } }).label?.name === 'Bug');
    expect(labeled).toHaveLength(1);
    const posts = appRequests(h.emu).filter((r) => r.route === 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels');
    expect(posts).toHaveLength(2);
    h.emu.assertNoViolations();
  }, 90_000);
});
