// GitHub's workflow-file rule meets a run that waits: the default branch changes its
// `.github/workflows/` while a run waits on a question. The App has no `workflows` permission,
// so every ref that still carries the old workflow files is refused from then on (a new ref is
// compared with the default branch's tip; a moved ref, by one reading, too). The run must still
// go on when the question is answered, and end in a pull request — under each reading of what
// a ref update is compared with (tests/emulator/readings.ts).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { READING_VALUES } from '../emulator/readings.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';
import { addLintWorkflowToMain, prFiles, WAIT } from './stories.ts';

const o = { owner: 'acme', repo: 'widgets' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('app: the default branch changes its workflow files while a run waits', () => {
  // Each reading of what a moved ref is compared with, and where GitHub refuses (the answer baton must read as the rule's).
  const readings = [
    ...READING_VALUES.refUpdateWorkflows.map((refUpdateWorkflows) => ({ refUpdateWorkflows, workflowRefusalAt: 'trees' as const })),
    ...(['commits', 'ref'] as const).map((workflowRefusalAt) => ({ refUpdateWorkflows: 'default-branch' as const, workflowRefusalAt })),
  ];
  it.each(readings)('goes on when answered and ends in a pull request (%o)', async (reading) => {
    h = await startHarness({
      files: { '.agents/workflows/wait.yml': WAIT },
      agents: { a: [{ write: { 'a.txt': 'a\n' } }], b: [{ write: { 'b.txt': 'b\n' } }] },
      readings: reading,
    });
    const alice = h.as('alice');
    const n = await openLabelled(h, 'baton:wait');
    await h.settle();
    expect(await h.record(n)).toContain('waiting for answers');
    await addLintWorkflowToMain(alice);
    await alice.rest.issues.createComment({ ...o, issue_number: n, body: '/baton answer Yes, go on.' });
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`wait-${n}-1\` — succeeded`);
    const [pr] = (await alice.rest.pulls.list({ ...o, state: 'open' })).data;
    expect(pr?.head.ref).toBe(`baton/wait-${n}-1`);
    // Both steps' work is on the branch, and the PR's diff is the run's own: main's new workflow is not in it.
    expect(await prFiles(alice, pr!.head.ref)).toEqual(['a.txt', 'b.txt']);
    h.emu.assertNoViolations();
  }, 90_000);
});

/** Two items at once: the first is merged (fast-forward, the branch left where it was) while the second still works. */
const PAIR = `name: pair
on: { labels: ["baton:pair"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: plan
    run: echo '{"items":["x","y"]}' > "$BATON_OUTPUT"
    outputs: { type: object, required: [items], properties: { items: { type: array, items: { type: string } } } }
  - id: work
    agent: coder
    for-each: \${{ steps.plan.outputs.items }}
    max-parallel: 2
    prompt: "Do \${{ item }}"
  - id: pr
    pull-request: { title: "Pair for #\${{ issue.number }}" }
`;

describe('app: the default branch changes its workflow files while a run works', () => {
  it.each(READING_VALUES.refUpdateWorkflows)('merges the slot that finishes after the change onto a run branch brought up to date (ref updates compared with: %s)', async (reading) => {
    const gate = join(mkdtempSync(join(tmpdir(), 'baton-gate-')), 'go');
    h = await startHarness({
      files: { '.agents/workflows/pair.yml': PAIR },
      agents: { 'work/0': [{ write: { 'x.txt': 'x\n' } }], 'work/1': [{ waitForFile: gate, write: { 'y.txt': 'y\n' } }] },
      readings: { refUpdateWorkflows: reading },
    });
    const alice = h.as('alice');
    const n = await openLabelled(h, 'baton:pair');
    const runId = `pair-${n}-1`;
    // The first item merged: the second still at work.
    await h.waitFor('the first item merged', async () => (await h!.record(n).catch(() => '')).includes('1 of 2'));
    await addLintWorkflowToMain(alice);
    writeFileSync(gate, '');
    await h.settle();
    expect(existsSync(gate)).toBe(true);
    expect(await h.record(n)).toContain(`run \`${runId}\` — succeeded`);
    expect(await prFiles(alice, `baton/${runId}`)).toEqual(['x.txt', 'y.txt']);
    h.emu.assertNoViolations();
  }, 90_000);
});
