// Reading deliverables back from GitHub (src/hosts/github/read-back.ts): what GitHub has now
// decides, never what an earlier answer said. Each miss is named; an answer GitHub could not
// give (a server error) is thrown, so the event is tried again.
import { describe, expect, it } from 'vitest';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { CommitCache } from '../../src/hosts/github/memory.ts';
import { readCommit, readDeliverable } from '../../src/hosts/github/read-back.ts';
import { markerComment } from '../../src/record/inert.ts';

function httpError(status: number, message: string) {
  return Object.assign(new Error(message), { status, response: { data: { message } } });
}

/** A client answering each route from `answers` (a function of the params, or an error to throw); paginate too. */
function client(answers: Record<string, unknown>): RepoContext & { calls: string[] } {
  const calls: string[] = [];
  const answer = async (route: string, params: unknown) => {
    calls.push(route);
    const a = answers[route];
    if (a === undefined) throw new Error(`unexpected ${route}`);
    if (a instanceof Error) throw a;
    return { data: typeof a === 'function' ? (a as (p: unknown) => unknown)(params) : a };
  };
  return {
    owner: 'acme',
    repo: 'widgets',
    defaultBranch: 'main',
    botLogin: 'baton[bot]',
    workerWorkflow: 'baton-worker.yml',
    calls,
    octokit: { request: answer, paginate: async (route: string, params: unknown) => (await answer(route, params)).data },
  } as unknown as RepoContext & { calls: string[] };
}

const PULL = 'GET /repos/{owner}/{repo}/pulls/{pull_number}';
const REVIEWS = 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews';
const LABELS = 'GET /repos/{owner}/{repo}/issues/{issue_number}/labels';
const REF = 'GET /repos/{owner}/{repo}/git/ref/{ref}';
const COMPARE = 'GET /repos/{owner}/{repo}/compare/{basehead}';
const COMMIT = 'GET /repos/{owner}/{repo}/git/commits/{commit_sha}';
const pr = { kind: 'pull-request' as const, number: 5, branch: 'baton/r1', head: 'h'.repeat(40) };

describe('read-back on GitHub', () => {
  it('a pull request is there only open, from the run branch, at the run head', async () => {
    const at = (o: object) => client({ [PULL]: { state: 'open', merged: false, head: { ref: 'baton/r1', sha: pr.head }, ...o } });
    expect((await readDeliverable(at({}), pr)).missing).toEqual([]);
    expect((await readDeliverable(at({ head: { ref: 'baton/r1', sha: 'o'.repeat(40) } }), pr)).missing).toEqual(["#5's head is ooooooo, not the run's head hhhhhhh"]);
    expect((await readDeliverable(at({ state: 'closed' }), pr)).missing).toEqual(['#5 is closed']);
    expect((await readDeliverable(client({ [PULL]: httpError(404, 'Not Found') }), pr)).missing).toEqual(['GitHub has no pull request #5']);
    await expect(readDeliverable(client({ [PULL]: httpError(502, 'Bad Gateway') }), pr)).rejects.toThrow('Bad Gateway');
  });

  it("a review is baton's own ending in the command's marker: a quote of the marker by someone else is not it", async () => {
    const x = { kind: 'review' as const, prNumber: 5, marker: 'r1/rev/review/1/post', reviewId: null };
    const tail = markerComment(`baton:review ${x.marker}`);
    const quoted = client({ [REVIEWS]: [{ id: 1, user: { login: 'mallory' }, body: `looks done\n${tail}` }] });
    expect((await readDeliverable(quoted, x)).missing).toEqual(["GitHub has no review of baton's on #5"]);
    const ours = client({ [REVIEWS]: [{ id: 9, user: { login: 'baton[bot]' }, body: `ok\n${tail}` }] });
    expect(await readDeliverable(ours, x)).toEqual({ missing: [], found: 'review 9 on #5' });
    expect((await readDeliverable(ours, { ...x, reviewId: 8 })).missing).toEqual(["GitHub has no review of baton's on #5 with id 8"]);
  });

  it('labels are there only when the issue has every one (compared without case)', async () => {
    const x = { kind: 'labels' as const, thread: { kind: 'issue' as const, number: 7 }, labels: ['Bug', 'docs'] };
    expect((await readDeliverable(client({ [LABELS]: [{ name: 'bug' }] }), x)).missing).toEqual(['#7 does not have `docs`']);
    expect((await readDeliverable(client({ [LABELS]: [{ name: 'bug' }, { name: 'DOCS' }] }), x)).missing).toEqual([]);
  });

  it("a writing step's commit: the branch leads to it or holds it, and its files differ from the step's start", async () => {
    const x = { kind: 'commit' as const, branch: 'baton/r1', head: 'h'.repeat(40), from: 'f'.repeat(40) };
    const commits = new CommitCache();
    commits.remember(x.from, 'tree-from');
    const trees = (tree: string) => ({ [COMMIT]: { sha: x.head, tree: { sha: tree } } });
    expect((await readCommit(client({ [REF]: httpError(404, 'Not Found') }), commits, x, 'heads/baton/r1', null)).missing).toEqual(['`heads/baton/r1` does not exist']);
    const moved = client({ [REF]: { object: { sha: 'o'.repeat(40) } }, [COMPARE]: { status: 'diverged' } });
    expect((await readCommit(moved, commits, x, 'heads/baton/r1', null)).missing).toEqual(["`heads/baton/r1` is at ooooooo, which neither holds nor leads to the step's commit hhhhhhh"]);
    const ahead = client({ [REF]: { object: { sha: 'o'.repeat(40) } }, [COMPARE]: { status: 'ahead' }, ...trees('tree-head') });
    expect(await readCommit(ahead, commits, x, 'heads/baton/r1', null)).toEqual({ missing: [], found: 'commit hhhhhhh, kept by `heads/baton/r1`' });
    const unchanged = client({ [REF]: { object: { sha: x.head } }, ...trees('tree-from') });
    expect((await readCommit(unchanged, commits, x, 'heads/baton/r1', null)).missing).toEqual(['commit hhhhhhh changes no file from where the step started (fffffff)']);
    const gone = client({ [REF]: { object: { sha: x.head } }, [COMMIT]: httpError(404, 'Not Found') });
    expect((await readCommit(gone, commits, x, 'heads/baton/r1', null)).missing).toEqual(['GitHub has no commit hhhhhhh']);
  });

  it('a commit GitHub accepted a ref at in this event costs no request when both trees are known', async () => {
    const x = { kind: 'commit' as const, branch: 'baton/r1', head: 'h'.repeat(40), from: 'f'.repeat(40) };
    const commits = new CommitCache();
    commits.remember(x.from, 'tree-from');
    commits.remember(x.head, 'tree-head');
    const gh = client({});
    expect(await readCommit(gh, commits, x, 'heads/baton/r1', "the run's claim")).toEqual({ missing: [], found: "commit hhhhhhh, kept by the run's claim" });
    expect(gh.calls).toEqual([]);
  });
});
