// Which Actions runs count as baton's worker: after a restart baton looks its workers up by
// run-name, which anyone can copy into a workflow of their own; and in Actions-only mode the
// apply job checks the run it runs in. Only the recorded run id, or (in older records
// without one) a workflow_dispatch by baton's identity on the default branch, is accepted.
import { describe, expect, it } from 'vitest';
import { factsOfThisRun } from '../../src/action/modes/apply.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { findWorkerRun } from '../../src/hosts/github/dispatch.ts';
import { foreignWorkerRun } from '../../src/hosts/github/worker-provenance.ts';

const TITLE = 'baton build-1-1 build #1';
const gh0 = { owner: 'acme', repo: 'widgets', defaultBranch: 'main', botLogin: 'baton[bot]', workerWorkflow: 'baton-worker.yml' };

const run = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  display_title: TITLE,
  html_url: `u/${id}`,
  status: 'completed',
  conclusion: 'success',
  event: 'workflow_dispatch',
  actor: { login: 'baton[bot]' },
  triggering_actor: { login: 'baton[bot]' },
  head_branch: 'main',
  head_repository: { full_name: 'acme/widgets' },
  ...over,
});

/** A client whose run list answers `runs`, newest first. */
function listing(runs: ReturnType<typeof run>[]): RepoContext {
  return { ...gh0, octokit: { request: async () => ({ status: 200, data: { workflow_runs: runs } }) } } as unknown as RepoContext;
}

describe('finding a worker run after a restart', () => {
  const forged = [
    run(9, { event: 'pull_request', head_branch: 'evil', actor: { login: 'bob' }, triggering_actor: { login: 'bob' } }),
    run(8, { actor: { login: 'bob' }, triggering_actor: { login: 'bob' } }),
    run(7, { head_branch: 'evil' }),
    run(6, { triggering_actor: { login: 'bob' } }),
    run(5, { head_repository: { full_name: 'bob/widgets' } }),
  ];

  it('without a recorded id, takes only a run baton dispatched on the default branch', async () => {
    expect((await findWorkerRun(listing([...forged, run(3)]), TITLE))?.id).toBe(3);
    expect(await findWorkerRun(listing(forged), TITLE)).toBeUndefined();
  });

  it('with a recorded id, takes only that run', async () => {
    expect((await findWorkerRun(listing([run(4), run(3)]), TITLE, 3))?.id).toBe(3);
    expect(await findWorkerRun(listing([run(4)]), TITLE, 3)).toBeUndefined();
  });
});

describe('the apply job checks the run it runs in', () => {
  const env = { GITHUB_REF: 'refs/heads/main', GITHUB_ACTOR: 'github-actions[bot]', GITHUB_TRIGGERING_ACTOR: 'github-actions[bot]', GITHUB_REPOSITORY: 'acme/widgets' };
  const actionsGh = { ...gh0, botLogin: 'github-actions[bot]' };

  it('accepts the run baton dispatched', () => {
    expect(foreignWorkerRun(actionsGh, 41, factsOfThisRun(env, 41, 'workflow_dispatch'))).toBeUndefined();
  });

  it.each([
    ['another run id', env, 42, 'workflow_dispatch', 'not the worker run baton dispatched'],
    ['a pull request', { ...env, GITHUB_REF: 'refs/pull/3/merge' }, 41, 'pull_request', '`pull_request` event'],
    ['a person dispatching by hand', { ...env, GITHUB_ACTOR: 'bob', GITHUB_TRIGGERING_ACTOR: 'bob' }, 41, 'workflow_dispatch', 'triggered by @bob'],
    ['a re-run by a person', { ...env, GITHUB_TRIGGERING_ACTOR: 'bob' }, 41, 'workflow_dispatch', 'triggered by @bob'],
    ['another branch', { ...env, GITHUB_REF: 'refs/heads/evil' }, 41, 'workflow_dispatch', 'ran on `evil`'],
    ['a tag', { ...env, GITHUB_REF: 'refs/tags/main' }, 41, 'workflow_dispatch', 'ran on `refs/tags/main`'],
  ])('refuses %s', (_what, e, id, event, why) => {
    expect(foreignWorkerRun(actionsGh, 41, factsOfThisRun(e, id, event))).toContain(why);
  });
});
