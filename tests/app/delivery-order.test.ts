// GitHub guarantees no order of deliveries (FIDELITY.md, "Overlapping deliveries"): a CI's
// `pending` status may arrive after its `success`. What the run keeps of a check is the newest
// result GitHub recorded, not the last one to arrive.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const GATE = `name: gate
on: { labels: ["baton:gate"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
  - id: ci
    checks: { names: [external, lint] }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

describe('app: deliveries out of order', () => {
  it("takes a CI's success when its earlier pending status arrives after it", async () => {
    // In order, so that the one pair this test swaps is the only swap (faults: reorder).
    h = await startHarness({ files: { '.agents/workflows/gate.yml': GATE }, agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] }, deliveries: 'in-order' });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data.number;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue, labels: ['baton:gate'] });
    await h.settle();
    const runId = `gate-${issue}-1`;
    const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;

    // The first status delivery (pending) is held until the next one (success) has gone out.
    h.emu.faults.addWebhook({ kind: 'reorder', event: 'status', times: 1 });
    await alice.rest.repos.createCommitStatus({ ...o, sha: head, state: 'pending', context: 'external' });
    await alice.rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'external' });
    await h.settle();
    const order = h.emu.webhooks.deliveries.filter((d) => d.event === 'status').sort((a, b) => a.sentAt! - b.sentAt!).map((d) => d.payload.state);
    expect(order).toEqual(['success', 'pending']);

    await alice.rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'lint' });
    await h.settle();
    const record = await h.record(issue);
    expect(record, record).toContain(`run \`${runId}\` — succeeded`);
    h.emu.assertNoViolations();
  }, 90_000);
});
