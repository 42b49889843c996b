// Large step outputs on GitHub (docs/architecture.md §4): kept in check runs, referenced from the
// status comment's state, which stays under GitHub's 65,536 characters; read back after a
// restart so that later steps see them whole; one too large for a check run fails the step.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_COMMENT_CHARS } from '../../src/record/render.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { isOutputRef } from '../../src/record/externalize.ts';
import { appRequests, type Harness, openLabelled, startHarness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SCHEMA = '{ type: object, required: [tag], properties: { tag: { type: string }, summary: { type: string } } }';
const BIG = `name: big
on: { labels: ["baton:big"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: a, agent: coder, writes: false, prompt: "part a", outputs: ${SCHEMA} }
  - { id: b, agent: coder, writes: false, prompt: "part b", outputs: ${SCHEMA} }
  - { id: c, agent: coder, writes: false, prompt: "part c", outputs: ${SCHEMA} }
  - id: gate
    approve: { roles: [admin], message: "Go on?" }
  - { id: last, agent: coder, writes: false, prompt: "Finish after \${{ steps.a.outputs.tag }} and \${{ steps.c.outputs.tag }}: \${{ steps.b.outputs.summary }}" }
`;

const HUGE = `name: huge
on: { labels: ["baton:huge"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: huge, agent: coder, writes: false, prompt: "say a lot", retries: 0 }
`;

/** Text that does not compress (letters and digits only: JSON keeps it as is). */
function noise(seed: number, length: number): string {
  const abc = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let s = seed;
  return Array.from({ length }, () => abc[(s = (s * 48271) % 2147483647) % abc.length]).join('');
}


describe('app: large step outputs', () => {
  it('keeps them in check runs, the status comment under the limit, and reads them back after a restart', async () => {
    const out = (step: string, seed: number) => [{ output: { tag: `tag-${step}`, summary: noise(seed, 30_000) } }];
    h = await startHarness({ files: { '.agents/workflows/big.yml': BIG }, agents: { a: out('a', 1), b: out('b', 2), c: out('c', 3) } });
    const n = await openLabelled(h, 'baton:big');
    const runId = `big-${n}-1`;
    await h.settle();

    const waiting = await h.record(n);
    expect(waiting).toContain(`run \`${runId}\` — running`);
    expect(waiting.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(waiting).toContain('(output kept in the check run)');
    const read = readStateBlock(waiting, undefined, { unsignedRead: true });
    if (!read.ok) throw new Error(read.problem);
    const moved = read.state.steps.filter((s) => isOutputRef(s.outputs)).map((s) => s.id);
    expect(moved.length).toBeGreaterThan(0);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
    const checks = (await h.as('alice').rest.checks.listForRef({ ...o, ref: head })).data.check_runs.filter((c) => c.name.endsWith(' outputs'));
    expect(checks.map((c) => c.name).sort()).toEqual(moved.map((s) => `baton / big / ${s} outputs`).sort());
    expect(checks.every((c) => c.external_id?.startsWith(`${runId}/`) && (c.output.text ?? '').length <= 65_535)).toBe(true);

    // The run waiting at its gate is kept in memory, its outputs whole.
    expect(h.app.runs.retained()).toMatchObject({ runs: 1, bytes: expect.any(Number) });
    expect(h.app.runs.retained().bytes).toBeGreaterThan(3 * 30_000);
    // A fresh app knows nothing: it loads the run from the comment and the check runs.
    await h.restart();
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    const done = await h.record(n);
    expect(done).toContain(`run \`${runId}\` — succeeded`);
    expect(done.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    const last = h.agentCalls().find((c) => c.prompt.includes('Finish after'));
    expect(last?.prompt).toContain('Finish after <agent-output source="steps.a">tag-a</agent-output> and <agent-output source="steps.c">tag-c</agent-output>');
    expect(last?.prompt).toContain(noise(2, 30_000).slice(0, 2000));
    const reads = appRequests(h.emu).filter((r) => r.route === 'GET /repos/{owner}/{repo}/check-runs/{check_run_id}');
    expect(reads).toHaveLength(moved.length); // once each, then from memory
    // Finished, the run's outputs are not kept in memory any more (nor its state and body).
    expect(h.app.runs.retained()).toEqual({ runs: 0, bytes: 0 });
    h.emu.assertNoViolations();
  }, 90_000);

  it('fails a step whose output is too large for a check run, saying so', async () => {
    h = await startHarness({ files: { '.agents/workflows/huge.yml': HUGE }, agents: { huge: [{ output: { summary: noise(4, 70_000) } }] } });
    const n = await openLabelled(h, 'baton:huge');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain('— failed');
    expect(record).toContain('baton keeps at most 65535 bytes per output');
    expect(record.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    h.emu.assertNoViolations();
  }, 60_000);

  it('cuts a step check run summary to GitHub\'s byte limit: outputs that fit as JSON but not pretty-printed do not wedge the run', async () => {
    // 54,000 bytes as compact JSON (kept); pretty-printed in the step's check run summary,
    // 60,000 characters (under 65,535) but 84,000 bytes (over).
    h = await startHarness({ files: { '.agents/workflows/huge.yml': HUGE }, agents: { huge: [{ output: { items: Array.from({ length: 6_000 }, () => '漢字') } }] } });
    const n = await openLabelled(h, 'baton:huge');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`huge-${n}-1\` — succeeded`);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/huge-${n}-1` })).data.object.sha;
    const checks = (await h.as('alice').rest.checks.listForRef({ ...o, ref: head })).data.check_runs;
    const step = checks.find((c) => c.name === 'baton / huge / huge');
    expect(step?.conclusion).toBe('success');
    expect(step?.output.summary).toMatch(/cut to GitHub's limit of 65535 bytes/);
    const failed = h.emu.webhooks.deliveries.filter((d) => !d.dropped && (d.error !== undefined || (d.status ?? 200) >= 300));
    expect(failed).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('measures an output in bytes, as GitHub measures a check run text: CJK that fits in characters fails the step, no delivery fails', async () => {
    // 40,000 characters (under 65,535) but 120,000 bytes of UTF-8 (over): GitHub would refuse
    // it as a check run text, where the status comment has to put it.
    h = await startHarness({ files: { '.agents/workflows/huge.yml': HUGE }, agents: { huge: [{ output: { summary: '漢'.repeat(40_000) } }] } });
    const n = await openLabelled(h, 'baton:huge');
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`huge-${n}-1\` — failed`);
    expect(record).toMatch(/the outputs of step `huge` are 1200\d\d bytes as JSON \(UTF-8\); baton keeps at most 65535 bytes per output/);
    const failed = h.emu.webhooks.deliveries.filter((d) => !d.dropped && (d.error !== undefined || (d.status ?? 200) >= 300));
    expect(failed).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});
