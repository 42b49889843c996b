// A finished run whose branches were deleted with its pull request (merged: the App deletes them,
// docs/operations.md "Refs baton keeps") and then gets `/baton retry <step>` never wedges: the
// run branch is made again at the run's last commit and the run goes on, or, when GitHub will
// not have that branch any more, the thread says why and to start a new run.
import { afterEach, describe, expect, it } from 'vitest';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo "hello at $(date +%s%N)" > hello.txt
  - id: pr
    pull-request: { title: "Hello for #\${{ issue.number }}" }
`;
const CI = 'on: push\njobs: { test: { runs-on: ubuntu-latest, steps: [{ run: "true" }] } }\n';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function branchSha(h: Harness, branch: string): Promise<string | null> {
  try {
    return (await h.as('alice').request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: `heads/${branch}` })).data.object.sha;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

/** A run of HELLO that opened its PR, which alice then squash-merges: the App deletes the run's branch. */
async function mergedRun(h: Harness): Promise<{ n: number; runId: string }> {
  const n = await openLabelled(h, 'baton:hello');
  const runId = `hello-${n}-1`;
  await h.settle();
  expect(await h.record(n)).toContain(`run \`${runId}\` — succeeded`);
  const [pull] = await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 });
  await h.as('alice').rest.pulls.merge({ ...o, pull_number: pull!.number, merge_method: 'squash' });
  await h.settle();
  expect(await branchSha(h, `baton/${runId}`)).toBeNull();
  return { n, runId };
}

const greets = (h: Harness, runId: string) => [...h.runner.store.runs.values()].filter((r) => r.displayTitle.startsWith(`baton ${runId} greet`)).length;

describe('app: /baton retry after the run branch was deleted', () => {
  it("makes the run branch again at the run's last commit, runs the step again and opens a new pull request with its work", async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    const { n, runId } = await mergedRun(h);
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry greet' });
    await h.settle();
    expect(greets(h, runId)).toBe(2);
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — succeeded`);
    expect(record).toMatch(/\| ✅ \| greet \|[^|]*\| 2 \|/);
    const [pull] = await h.as('alice').paginate('GET /repos/{owner}/{repo}/pulls', { ...o, state: 'open', per_page: 100 });
    expect(pull?.head.ref).toBe(`baton/${runId}`);
    expect(await branchSha(h, `baton/${runId}`)).toBe(pull!.head.sha);
  }, 90_000);

  it('says in the thread why the run cannot be retried, and to start a new run, when GitHub refuses its branch', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO, '.github/workflows/ci.yml': CI } });
    const { n, runId } = await mergedRun(h);
    // main changes its workflow files (GitHub then refuses a new ref on the run's commit to the
    // App) and hello.txt (merging main into the run's commit conflicts).
    for (const [path, content] of [['.github/workflows/ci.yml', `${CI}# changed\n`], ['hello.txt', 'bonjour\n']] as const) {
      const current = await h.as('alice').rest.repos.getContent({ ...o, path }).catch(() => undefined);
      const sha = current && !Array.isArray(current.data) ? current.data.sha : undefined;
      await h.as('alice').rest.repos.createOrUpdateFileContents({ ...o, path, message: `change ${path}`, content: Buffer.from(content).toString('base64'), ...(sha && { sha }) });
    }
    await h.settle();
    const before = await h.record(n);
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry greet' });
    await h.settle();
    const reply = (await h.comments(n)).at(-1)!;
    expect(reply).toContain(`@alice, run \`${runId}\` cannot be retried: its branch \`baton/${runId}\` was deleted when its pull request`);
    expect(reply).toMatch(/GitHub refuses to make it again at the run's last commit [0-9a-f]{7}/);
    expect(reply).toContain('Start a new run instead');
    expect(greets(h, runId)).toBe(1);
    expect(await branchSha(h, `baton/${runId}`)).toBeNull();
    expect(await h.record(n)).toBe(before);
  }, 90_000);
});
