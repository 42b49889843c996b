// Actions-only mode: a run's events share one concurrency group (`baton-<thread>`), and GitHub
// keeps at most one running and one pending job per group — a newer pending job cancels the
// older one. A maintainer's `/baton approve` waiting behind a running job is displaced by
// whatever comes next for the run: a stranger's "+1", a CI status. And the worker's `apply`
// job waits in the same group. Nothing said or produced may be lost to that: the next job
// of the run catches up on the thread's comments (src/action/catch-up.ts) and on finished
// worker runs (the reconcile of src/app/runs.ts).
//
// The running job that holds the group is a workflow of the test's own (`hold.yml`) in the
// same group, released by the test: it stands for a slow baton job, so that which job is
// pending when is decided by the test, not by timing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../emulator/actions/records.ts';
import { quoteReply } from '../emulator/quote-reply.ts';
import { APPLIED_KEYS_LIMIT } from '../../src/engine/types.ts';
import { readStateBlock, writeStateBlock } from '../../src/record/state-block.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const GATED = `name: gated
on: { labels: ["baton:gated"] }
steps:
  - id: gate
    approve: {}
  - id: after
    run: echo done > after.txt
`;

const ASK = `name: asky
on: { labels: ["baton:ask"] }
steps:
  - id: clarify
    ask: { questions: ["Which file?"] }
  - id: write
    env: { FILE: "\${{ steps.clarify.outputs.answers[0] }}" }
    run: echo answered > "$FILE"
`;

const BUILD = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
    retries: 0
`;

const FAILING = `name: failing
on: { labels: ["baton:failing"] }
steps:
  - id: build
    run: exit 1
`;

const WITH_PR = `name: shipped
on: { labels: ["baton:shipped"] }
steps:
  - id: build
    run: echo built > built.txt
  - id: pr
    pull-request: { title: "Built for #\${{ issue.number }}" }
  - id: check
    run: exit 1
`;

/** The key the harness hands baton.yml as BATON_STATE_SECRET (harness.ts). */
const STATE_SECRET = 'actions-only-state-secret';

const HOLD = `name: hold
on:
  workflow_dispatch:
    inputs:
      key: { required: true }
      release: { required: true }
jobs:
  hold:
    runs-on: ubuntu-latest
    concurrency: { group: "baton-\${{ inputs.key }}", cancel-in-progress: false }
    steps:
      - env: { RELEASE: "\${{ inputs.release }}" }
        run: while [ ! -f "$RELEASE" ]; do sleep 0.05; done
`;

let h: ActionsOnly | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = async (n: number) =>
  (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';

const runs = (): RunRecord[] => [...h!.runner.store.runs.values()];
const jobOf = (r: RunRecord, key: string) => h!.runner.store.runs.get(r.id)!.jobs.find((j) => j.key === key);

/** The one run of `path` started after `before` runs existed. */
async function nextRun(before: number, path: string): Promise<RunRecord> {
  let found: RunRecord | undefined;
  await h!.waitFor(`a new run of ${path}`, () => (found = runs().slice(before).find((r) => r.path === path)) !== undefined);
  return found!;
}

/** Holds the run's concurrency group with a running job until the returned function is called. */
async function holdGroup(thread: number): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-hold-'));
  dirs.push(dir);
  const release = join(dir, 'release');
  const before = runs().length;
  await h!.as('alice').request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...o, workflow_id: 'hold.yml', ref: 'main', inputs: { key: String(thread), release } });
  const hold = await nextRun(before, '.github/workflows/hold.yml');
  await h!.waitFor('the holding job at work', () => jobOf(hold, 'hold')?.status === 'in_progress');
  return () => writeFileSync(release, '');
}

/** A comment, and the `run` job of baton.yml it started once that job waits in the group. */
async function commentPending(as: string, n: number, body: string): Promise<RunRecord> {
  const before = runs().length;
  await h!.as(as).rest.issues.createComment({ ...o, issue_number: n, body });
  const run = await nextRun(before, '.github/workflows/baton.yml');
  await h!.waitFor(`the run job for "${body}" pending`, () => jobOf(run, 'run')?.status === 'queued');
  return run;
}

async function start(manifest: Record<string, string>, label: string, agentScript: unknown[] = []): Promise<number> {
  h = await startActionsOnly({ init: ['--mode', 'actions'], files: { ...manifest, '.github/workflows/hold.yml': HOLD }, agentScript });
  const n = (await h.as('alice').rest.issues.create({ ...o, title: 'Gate it', body: 'Please.', labels: [label] })).data.number;
  await h.settle();
  return n;
}

describe('Actions-only mode: nothing is lost to the concurrency group', () => {
  it("applies a maintainer's /baton approve that a stranger's comment displaced", async () => {
    const n = await start({ '.agents/workflows/gated.yml': GATED }, 'baton:gated');
    expect(await record(n)).toMatch(/gate \| running/);
    const release = await holdGroup(n);
    const approve = await commentPending('alice', n, '/baton approve');
    const plusOne = await commentPending('mallory', n, '+1');
    // GitHub's rule, as the emulator runs it: the newer pending job cancelled the approve's.
    expect(jobOf(approve, 'run')?.conclusion).toBe('cancelled');
    release();
    await h!.settle();
    expect(jobOf(plusOne, 'run')?.conclusion, h!.runner.logs(plusOne.id)).toBe('success');
    const body = await record(n);
    expect(body).toContain('succeeded');
    expect(body).toContain('| gate | approved by @alice |');
    expect(body).toMatch(/after \| done/);
  }, 60_000);

  it("applies a maintainer's quote-reply answer that a stranger's comment displaced, and not her plain comment displaced before it", async () => {
    const n = await start({ '.agents/workflows/ask.yml': ASK }, 'baton:ask');
    expect(await record(n)).toMatch(/clarify \| waiting for answers \(0 of 1\)/);
    const question = (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.find((c) => c.body?.includes('<!-- baton:questions '))!.body!;
    const release = await holdGroup(n);
    // Her remark about something else comes first: were it taken as the answer, the run would write `unrelated.txt`.
    const plain = await commentPending('alice', n, 'unrelated.txt');
    const answer = await commentPending('alice', n, quoteReply(question, 'answered.txt'));
    await commentPending('mallory', n, '+1');
    expect(jobOf(plain, 'run')?.conclusion).toBe('cancelled');
    expect(jobOf(answer, 'run')?.conclusion).toBe('cancelled');
    release();
    await h!.settle();
    const body = await record(n);
    expect(body).toContain('succeeded');
    expect(body).toMatch(/clarify \| answered by @alice/);
    const head = (await h!.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/asky-${n}-1` })).data.object.sha;
    const files = (await h!.as('alice').rest.git.getTree({ ...o, tree_sha: head })).data.tree.map((t) => t.path);
    expect(files).toContain('answered.txt');
    expect(files).not.toContain('unrelated.txt');
  }, 60_000);

  it("applies a maintainer's /baton approve that a CI status on the run branch displaced", async () => {
    const n = await start({ '.agents/workflows/gated.yml': GATED }, 'baton:gated');
    const head = (await h!.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/gated-${n}-1` })).data.object.sha;
    const release = await holdGroup(n);
    const approve = await commentPending('alice', n, '/baton approve');
    const before = runs().length;
    await h!.as('ci-bot').rest.repos.createCommitStatus({ ...o, sha: head, state: 'success', context: 'lint' });
    const status = await nextRun(before, '.github/workflows/baton.yml');
    expect(status.event).toBe('status');
    await h!.waitFor('the status job pending', () => jobOf(status, 'run')?.status === 'queued');
    expect(jobOf(approve, 'run')?.conclusion).toBe('cancelled');
    release();
    await h!.settle();
    const body = await record(n);
    expect(body).toContain('succeeded');
    expect(body).toContain('| gate | approved by @alice |');
  }, 60_000);

  it("applies a worker's result whose apply job a stranger's comment displaced", async () => {
    // The group is held before the run starts working: the worker's apply job will wait in it.
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/build.yml': BUILD, '.github/workflows/hold.yml': HOLD }, agentScript: [{ write: { 'built.txt': 'built\n' }, reply: { done: true } }] });
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Build', body: 'Please.' })).data;
    const n = issue.number;
    const release = await holdGroup(n);
    // The label's job waits in the group too; released once, it dispatches the worker.
    const before = runs().length;
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:build'] });
    const labelled = await nextRun(before, '.github/workflows/baton.yml');
    await h.waitFor('the label job pending', () => jobOf(labelled, 'run')?.status === 'queued');
    release();
    const worker = await nextRun(before, '.github/workflows/baton-worker.yml');
    // Hold the group again while the agent works: the apply job is then pending behind it.
    const releaseAgain = await holdGroup(n);
    await h.waitFor('the apply job pending', () => jobOf(worker, 'apply')?.status === 'queued');
    await commentPending('mallory', n, '+1');
    expect(jobOf(worker, 'apply')?.conclusion).toBe('cancelled');
    releaseAgain();
    await h.settle();
    const body = await record(n);
    expect(body).toMatch(/build \| done/);
    expect(body).toContain('succeeded');
  }, 60_000);

  it("never applies a displaced /baton retry twice, however many events pushed its key out of the run's applied keys", async () => {
    const n = await start({ '.agents/workflows/failing.yml': FAILING }, 'baton:failing');
    expect(await record(n)).toMatch(/\| ❌ \| build \|[^|]*\| 1 \|/);
    const release = await holdGroup(n);
    const retry = await commentPending('alice', n, '/baton retry build');
    await commentPending('mallory', n, '+1');
    expect(jobOf(retry, 'run')?.conclusion).toBe('cancelled');
    release();
    await h!.settle();
    expect(await record(n)).toMatch(/\| ❌ \| build \|[^|]*\| 2 \|/);

    // A long run later: the run's applied keys hold only newer events (as baton writes them,
    // signed with its key) — the retry's key is one the state has forgotten.
    const status = (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.find((c) => c.body?.includes('baton:record'))!;
    const read = readStateBlock(status.body!, STATE_SECRET);
    if (!read.ok) throw new Error(read.problem);
    expect(read.state.appliedKeys).toContain(`comment:${(await commentIdOf(n, '/baton retry build'))}`);
    const flooded = { ...read.state, appliedKeys: Array.from({ length: APPLIED_KEYS_LIMIT }, (_, i) => `status:${i}`) };
    const body = status.body!.replace(/<!-- baton:state [^\n]*-->\s*$/, writeStateBlock(flooded, STATE_SECRET, read.gen));
    await h!.as('alice').rest.issues.updateComment({ ...o, comment_id: status.id, body });

    await h!.as('mallory').rest.issues.createComment({ ...o, issue_number: n, body: 'ping' });
    await h!.settle();
    expect(await record(n)).toMatch(/\| ❌ \| build \|[^|]*\| 2 \|/);
  }, 90_000);

  it("applies a displaced /baton retry on an older run's pull request after a newer run started in the thread", async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/shipped.yml': WITH_PR, '.github/workflows/hold.yml': HOLD }, agentScript: [] });
    // Settings → Actions → "Allow GitHub Actions to create and approve pull requests" (docs/actions-only.md).
    h.emu.store.repo('acme', 'widgets')!.actionsCanCreatePullRequests = true;
    const n = (await h.as('alice').rest.issues.create({ ...o, title: 'Ship it', body: 'Please.', labels: ['baton:shipped'] })).data.number;
    await h.settle();
    expect(await record(n)).toMatch(/\| ❌ \| check \|[^|]*\| 1 \|/);
    const pulls = async () => (await h!.as('alice').rest.pulls.list({ ...o, state: 'all' })).data;
    const first = (await pulls()).find((p) => p.body?.includes(`shipped-${n}-1`))!;
    expect(first).toBeDefined();
    // A second run of the thread: the first one ended (failed).
    await h!.as('alice').rest.issues.removeLabel({ ...o, issue_number: n, name: 'baton:shipped' });
    await h!.settle();
    await h!.as('alice').rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:shipped'] });
    await h!.settle();
    const records = async () => (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.filter((c) => c.body?.includes('baton:record')).map((c) => c.body!);
    expect((await records())[1]).toContain(`shipped-${n}-2`);

    const release = await holdGroup(n);
    const before = runs().length;
    await h!.as('alice').rest.issues.createComment({ ...o, issue_number: first.number, body: '/baton retry check' });
    const retry = await nextRun(before, '.github/workflows/baton.yml');
    await h!.waitFor('the retry job pending', () => jobOf(retry, 'run')?.status === 'queued');
    await commentPending('mallory', n, '+1');
    expect(jobOf(retry, 'run')?.conclusion).toBe('cancelled');
    release();
    await h!.settle();
    const [one, two] = await records();
    expect(one).toMatch(/\| ❌ \| check \|[^|]*\| 2 \|/);
    expect(two).toMatch(/\| ❌ \| check \|[^|]*\| 1 \|/);
  }, 120_000);
});

async function commentIdOf(n: number, body: string): Promise<number> {
  return (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.find((c) => c.body === body)!.id;
}
