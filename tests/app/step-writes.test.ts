// What the App writes to GitHub for an agent step, end to end on the real worker. Each
// write is paced (~1/s per installation), so only what someone needs is written: a step's
// commit that fast-forwards the run branch gets no branch of its own, and the step's check
// run is written once, completed, when the attempt ends (its worker's Actions job is the
// running check meanwhile). A failed attempt's checkpoint is the exception: the next attempt
// starts from it, fetched by sha, so a ref must keep it.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, chainWorkflow, openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CREATE_REF = 'POST /repos/{owner}/{repo}/git/refs';

/**
 * Step refs (step and fix-round commits the run branch does not have) on the repository now:
 * under `refs/baton/steps/`, never a branch (`refs/heads/baton/steps/` stays empty), so no push CI runs on them.
 */
async function stepBranches(h: Harness): Promise<Array<{ ref: string; sha: string }>> {
  const branches = (await h.as('alice').rest.git.listMatchingRefs({ ...o, ref: 'heads/baton/steps/' })).data;
  expect(branches).toEqual([]);
  const refs = (await h.as('alice').rest.git.listMatchingRefs({ ...o, ref: 'baton/steps/' })).data;
  return refs.map((r) => ({ ref: r.ref, sha: r.object.sha }));
}

/** Every check run named `name` the App created, whatever commit it is on. */
const checkRunsNamed = (h: Harness, name: string) => [...h.emu.store.checkRuns.values()].filter((c) => c.name === name);

/** A plan, then one job per task, both at once (so the second to finish is merged, not fast-forwarded). */
const FAN = [
  'name: fan',
  'on: { labels: ["baton:fan"] }',
  'agents: { coder: { uses: claude-code } }',
  'steps:',
  '  - { id: plan, agent: coder, writes: false, prompt: "Plan", outputs: { type: object, required: [tasks], properties: { tasks: { type: array } } } }',
  '  - { id: impl, agent: coder, for-each: "${{ steps.plan.outputs.tasks }}", max-parallel: 2, prompt: "Do ${{ item }}" }',
  '',
].join('\n');

const workerRuns = (h: Harness) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml'));

describe('app: what an agent step writes', () => {
  it('a 2-step chain: no step branch for commits that fast-forward, one completed check run per step with its start time', async () => {
    h = await startHarness({ files: { '.agents/workflows/chain.yml': chainWorkflow(2) }, agents: { a: [{ write: { 'a.txt': 'a\n' } }], b: [{ write: { 'b.txt': 'b\n' } }] } });
    const n = await openLabelled(h, 'baton:chain');
    await h.settle();
    expect(await h.record(n)).toContain('succeeded');

    // The only branch the App created is the run branch; both steps' commits are on it (the other
    // refs it created are its claims on the run, under refs/baton/leases/).
    const log = appRequests(h.emu);
    const branches = (await h.as('alice').rest.git.listMatchingRefs({ ...o, ref: 'heads/baton/' })).data.map((r) => r.ref);
    expect(branches).toEqual([`refs/heads/baton/chain-${n}-1`]);
    const claims = (await h.as('alice').rest.git.listMatchingRefs({ ...o, ref: `baton/leases/chain-${n}-1/` })).data;
    expect(log.filter((r) => r.route === CREATE_REF && r.status === 201)).toHaveLength(1 + claims.length);
    expect(await stepBranches(h)).toEqual([]);
    // Before a pull request exists, a step's commit is the run's head without moving the branch
    // (the event's claim points at it, and the next worker fetches it by sha): the branch moves once,
    // when the run stops for anything but a worker — here, its end.
    const branchMoves = log.filter((r) => r.route === 'PATCH /repos/{owner}/{repo}/git/refs/{ref}' && decodeURIComponent(r.path).includes(`heads/baton/chain-${n}-1`));
    expect(branchMoves).toHaveLength(1);
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/chain-${n}-1` })).data.object.sha;
    const tree = (await h.as('alice').rest.git.getTree({ ...o, tree_sha: head, recursive: 'true' })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['a.txt', 'b.txt']));

    for (const step of ['a', 'b']) {
      const checks = checkRunsNamed(h, `baton / chain / ${step}`);
      expect(checks.map((c) => [c.status, c.conclusion]), step).toEqual([['completed', 'success']]);
      const [check] = checks;
      // Created completed, yet its duration shows: it started when the attempt was dispatched.
      const worker = workerRuns(h).find((r) => r.displayTitle.endsWith(` ${step} #1`))!;
      const started = Date.parse(check!.startedAt!);
      expect(started).toBeLessThan(Date.parse(check!.completedAt!));
      // Taken when the dispatch was decided: no later than the worker run was created.
      expect(started).toBeLessThanOrEqual(Date.parse(worker.createdAt));
    }
    // Written once: no step check run was ever updated.
    const updates = log.filter((r) => r.route === 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}');
    const stepCheckIds = new Set([...h.emu.store.checkRuns.values()].filter((c) => /^baton \/ chain \/ /.test(c.name)).map((c) => String(c.id)));
    expect(updates.filter((r) => stepCheckIds.has(r.path.split('/').at(-1)!))).toEqual([]);
  }, 60_000);

  it("keeps a failed attempt's checkpoint on its step ref (refs/baton/steps/…, no branch), where the next attempt's dispatch base points", async () => {
    const build = ['name: build', 'on: { labels: ["baton:build"] }', 'agents: { coder: { uses: claude-code } }', 'steps:', '  - { id: build, agent: coder, prompt: "Build it", retries: 1 }', ''].join('\n');
    h = await startHarness({
      files: { '.agents/workflows/build.yml': build },
      agents: { build: [{ write: { 'half.txt': 'half done\n' }, exit: 1 }, { write: { 'done.txt': 'done\n' } }] },
    });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    expect(await h.record(n)).toContain('succeeded');

    const [first, second] = workerRuns(h).sort((x, y) => x.id - y.id);
    expect(second?.displayTitle).toMatch(/ build #2$/);
    const checkpoint = String(second!.inputs.base);
    expect(checkpoint).not.toBe(String(first!.inputs.base));
    // The commit the second attempt started from is what the step branch points at, and holds the partial work.
    expect(await stepBranches(h)).toEqual([{ ref: `refs/baton/steps/build-${n}-1/build`, sha: checkpoint }]);
    const partial = (await h.as('alice').rest.git.getTree({ ...o, tree_sha: checkpoint })).data.tree.map((t) => t.path);
    expect(partial).toContain('half.txt');
    // The second attempt went on from there: the run branch has both.
    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/build-${n}-1` })).data.object.sha;
    const tree = (await h.as('alice').rest.git.getTree({ ...o, tree_sha: head })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['half.txt', 'done.txt']));
    // One check run per attempt: the failed one and the one that succeeded, each written once.
    expect(checkRunsNamed(h, 'baton / build / build').map((c) => [c.externalId, c.conclusion])).toEqual([
      [`build-${n}-1/build/1`, 'failure'],
      [`build-${n}-1/build/2`, 'success'],
    ]);
  }, 60_000);

  it('a fan-out still merges every item (merge commits, no step branches) and writes its check run once', async () => {
    h = await startHarness({
      files: { '.agents/workflows/fan.yml': FAN },
      agents: { plan: [{ output: { tasks: ['x', 'y'] } }], 'impl/0': [{ write: { 'x.txt': 'x\n' } }], 'impl/1': [{ write: { 'y.txt': 'y\n' } }] },
    });
    const n = await openLabelled(h, 'baton:fan');
    await h.settle();
    expect(await h.record(n)).toContain('succeeded');

    const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/fan-${n}-1` })).data.object.sha;
    const tree = (await h.as('alice').rest.git.getTree({ ...o, tree_sha: head })).data.tree.map((t) => t.path);
    expect(tree).toEqual(expect.arrayContaining(['x.txt', 'y.txt']));
    // Both items started from the same head, so the second one merged through the merges API, by sha.
    expect(appRequests(h.emu).filter((r) => r.route === 'POST /repos/{owner}/{repo}/merges' && r.status === 201)).toHaveLength(1);
    expect(await stepBranches(h)).toEqual([]);
    expect(checkRunsNamed(h, 'baton / fan / impl').map((c) => [c.status, c.conclusion, c.output.title])).toEqual([['completed', 'success', '2 items done']]);
  }, 60_000);

  it('keeps a commit that conflicts on its step ref (no branch) and names that ref in the failure', async () => {
    const fan = FAN.replace('baton:fan', 'baton:clash');
    h = await startHarness({
      files: { '.agents/workflows/fan.yml': fan },
      agents: { plan: [{ output: { tasks: ['x', 'y'] } }], 'impl/0': [{ write: { 'same.txt': 'from x\n' } }], 'impl/1': [{ write: { 'same.txt': 'from y\n' } }] },
    });
    const n = await openLabelled(h, 'baton:clash');
    await h.settle();
    const record = await h.record(n);
    const named = /merge conflict with the run branch in same\.txt \(the attempt's commit is on (refs\/baton\/steps\/[^)]+)\)/.exec(record);
    expect(named, record).not.toBeNull();
    // The one ref the App wrote besides the run branch (and its claims) holds the losing item's change.
    const [kept] = await stepBranches(h);
    expect(await stepBranches(h)).toHaveLength(1);
    expect(kept!.ref).toBe(named![1]);
    const file = (await h.as('alice').rest.repos.getContent({ ...o, path: 'same.txt', ref: kept!.sha })).data as { content: string };
    expect(Buffer.from(file.content, 'base64').toString()).toMatch(/^from [xy]\n$/);
  }, 60_000);
});
