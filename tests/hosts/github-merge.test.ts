// Merging a step's commit into the run branch: a refusal GitHub means for good (a ruleset,
// a protected branch) becomes `merge.refused` with GitHub's answer, which fails the attempt;
// a server error is thrown, so the delivery is retried.
import { describe, expect, it } from 'vitest';
import type { MergeStepBranch } from '../../src/engine/index.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { CommitCache } from '../../src/hosts/github/memory.ts';
import { mergeStepBranch } from '../../src/hosts/github/merge.ts';

/** An Octokit error as @octokit/request-error shapes it. */
function httpError(status: number, message: string) {
  return Object.assign(new Error(message), { status, response: { data: { message } } });
}

function client(answers: Record<string, (params: never) => unknown>): RepoContext {
  return {
    owner: 'acme',
    repo: 'widgets',
    defaultBranch: 'main',
    botLogin: 'baton[bot]',
    workerWorkflow: 'baton-worker.yml',
    octokit: {
      request: async (route: string, params: never) => {
        const answer = answers[route];
        if (!answer) throw new Error(`unexpected ${route}`);
        return answer(params);
      },
    },
  } as unknown as RepoContext;
}

const cmd: MergeStepBranch = {
  type: 'merge-step-branch',
  runId: 'r1',
  key: 'r1/a/merge/1',
  step: 'a',
  slot: '0',
  attempt: 1,
  branch: 'baton/steps/r1/a',
  commit: 'c'.repeat(40),
  into: 'baton/r1',
  message: 'merge a',
};
const PATCH = 'PATCH /repos/{owner}/{repo}/git/refs/{ref}';
const MERGES = 'POST /repos/{owner}/{repo}/merges';
const CREATE_REF = 'POST /repos/{owner}/{repo}/git/refs';
const COMPARE = 'GET /repos/{owner}/{repo}/compare/{basehead}';

describe('merging a step\'s commit', () => {
  it('turns a ruleset refusal of the ref update into merge.refused with GitHub’s answer', async () => {
    const compare = () => ({ data: { files: [{ filename: 'src/x.ts' }] } });
    const gh = client({ [PATCH]: () => { throw httpError(422, 'Repository rule violations found'); }, [COMPARE]: compare });
    const events = await mergeStepBranch(gh, new CommitCache(), cmd, 'h'.repeat(40), 1);
    expect(events).toMatchObject([{ type: 'merge.refused', step: 'a', attempt: 1, error: "GitHub refused to merge the step's commit into baton/r1 (422 Repository rule violations found)" }]);
  });

  it("names the workflow files of a commit whose ref update GitHub refused, with the remedy of the run's mode", async () => {
    // Where GitHub refuses a workflow-file change may be the ref (readings.ts `workflowRefusalAt: ref`), answered 422.
    const answers = { [PATCH]: () => { throw httpError(422, 'Reference update failed'); }, [COMPARE]: () => ({ data: { files: [{ filename: '.github/workflows/x.yml' }, { filename: 'src/x.ts' }] } }) };
    const [app] = await mergeStepBranch(client(answers), new CommitCache(), cmd, 'h'.repeat(40), 1);
    expect(app).toMatchObject({ type: 'merge.refused', error: expect.stringMatching(/^GitHub refused to write \.github\/workflows\/x\.yml \(422 Reference update failed\): .*grant it to the baton App/) });
    const [token] = await mergeStepBranch({ ...client(answers), writesAs: 'github-token' }, new CommitCache(), cmd, 'h'.repeat(40), 1);
    expect((token as { error: string }).error).toContain('GITHUB_TOKEN, which can never write workflow files');
    expect((token as { error: string }).error).toContain('--app-token');
  });

  it('turns a 403 from the merges API into merge.refused; a 409 is still a conflict', async () => {
    const notFastForward = () => { throw httpError(422, 'Update is not a fast forward'); };
    // Not the commit's own workflow files: the branch is taken to lag main's, and merging main in is refused too.
    const tip = () => ({ data: { sha: 'd'.repeat(40), commit: { tree: { sha: 't'.repeat(40) } } } });
    const refused = client({ [PATCH]: notFastForward, [MERGES]: () => { throw httpError(403, 'Resource not accessible by integration'); }, [COMPARE]: () => ({ data: { files: [] } }), 'GET /repos/{owner}/{repo}/commits/{ref}': tip });
    expect(await mergeStepBranch(refused, new CommitCache(), cmd, 'h'.repeat(40), 1)).toMatchObject([{ type: 'merge.refused', error: expect.stringContaining('403 Resource not accessible by integration') }]);
    const compare = () => ({ data: { files: [{ filename: 'src/x.ts' }] } });
    const conflicted = client({ [PATCH]: notFastForward, [MERGES]: () => { throw httpError(409, 'Merge conflict'); }, 'GET /repos/{owner}/{repo}/compare/{basehead}': compare, [CREATE_REF]: () => ({ status: 201 }) });
    expect(await mergeStepBranch(conflicted, new CommitCache(), cmd, 'h'.repeat(40), 1)).toMatchObject([{ type: 'merge.conflicted', files: ['src/x.ts'] }]);
  });

  it('keeps a conflicting commit on its step ref (refs/baton/steps/…, no branch: no push CI runs on it) for people to look at, and says where; a refused ref still reports the conflict', async () => {
    const notFastForward = () => { throw httpError(422, 'Update is not a fast forward'); };
    const compare = () => ({ data: { files: [{ filename: 'src/x.ts' }] } });
    const created: unknown[] = [];
    const base = { [PATCH]: notFastForward, [MERGES]: () => { throw httpError(409, 'Merge conflict'); }, 'GET /repos/{owner}/{repo}/compare/{basehead}': compare };
    const kept = client({ ...base, [CREATE_REF]: (p: { ref: string }) => (created.push(p.ref), { status: 201 }) });
    const [event] = await mergeStepBranch(kept, new CommitCache(), cmd, 'h'.repeat(40), 1);
    expect(created).toEqual(['refs/baton/steps/r1/a']);
    expect(event).toMatchObject({ type: 'merge.conflicted', files: ['src/x.ts'], branch: 'refs/baton/steps/r1/a' });
    const ruled = client({ ...base, [CREATE_REF]: () => { throw httpError(422, 'Repository rule violations found'); } });
    const [plain] = await mergeStepBranch(ruled, new CommitCache(), cmd, 'h'.repeat(40), 1);
    expect(plain).toMatchObject({ type: 'merge.conflicted', files: ['src/x.ts'] });
    expect(plain).not.toHaveProperty('branch');
  });

  it('writes no ref but the run branch when the merge is a fast-forward or a clean merge commit', async () => {
    const routes: string[] = [];
    const seen = (route: string, answer: unknown) => () => (routes.push(route), answer);
    const ff = client({ [PATCH]: seen(PATCH, { status: 200 }) });
    expect(await mergeStepBranch(ff, new CommitCache(), cmd, 'h'.repeat(40), 1)).toMatchObject([{ type: 'merge.completed', head: cmd.commit }]);
    const merged = { status: 201, data: { sha: 'm'.repeat(40), commit: { tree: { sha: 't'.repeat(40) } } } };
    const clean = client({ [PATCH]: () => { throw httpError(422, 'Update is not a fast forward'); }, [MERGES]: seen(MERGES, merged) });
    expect(await mergeStepBranch(clean, new CommitCache(), cmd, 'h'.repeat(40), 1)).toMatchObject([{ type: 'merge.completed', head: 'm'.repeat(40) }]);
    expect(routes).toEqual([PATCH, MERGES]); // no POST git/refs: `client` throws on any route it was not given
  });

  it('asks for no fast-forward that cannot be one (a parallel slot whose parent is not the head): one write, the merge', async () => {
    const routes: string[] = [];
    const merged = { status: 201, data: { sha: 'm'.repeat(40), commit: { tree: { sha: 't'.repeat(40) } } } };
    const parallel = client({ [PATCH]: () => { routes.push(PATCH); throw httpError(422, 'Update is not a fast forward'); }, [MERGES]: () => (routes.push(MERGES), merged) });
    expect(await mergeStepBranch(parallel, new CommitCache(), cmd, 'h'.repeat(40), 1, { onHead: false })).toMatchObject([{ type: 'merge.completed', head: 'm'.repeat(40) }]);
    expect(routes).toEqual([MERGES]);
  });

  it('throws what waiting may cure (5xx, secondary rate limits), so the delivery is retried', async () => {
    const down = client({ [PATCH]: () => { throw httpError(502, 'Bad Gateway'); } });
    await expect(mergeStepBranch(down, new CommitCache(), cmd, 'h'.repeat(40), 1)).rejects.toMatchObject({ status: 502 });
    const limited = client({ [PATCH]: () => { throw httpError(403, 'You have exceeded a secondary rate limit'); } });
    await expect(mergeStepBranch(limited, new CommitCache(), cmd, 'h'.repeat(40), 1)).rejects.toMatchObject({ status: 403 });
  });
});
