// A stranger's pull request from a fork, as the fork tests of both modes and the attack tests
// deliver it: the `forks: review` workflow they run, and mallory (no access) forking the
// repository, committing on `patch-1` and opening the pull request.
import { eventSubscriptions, onBlock } from '../../src/init/event-subscriptions.ts';
import { withOnBlock } from '../../src/init/on-block.ts';
import { loadWorkflowText } from '../../src/manifest/load.ts';
import { initFiles } from '../actions-only/harness.ts';
import type { Emulator } from '../emulator/emulator.ts';
import { forkCommit, openForkPullRequest } from '../emulator/forks.ts';
import { FORK_REVIEW_HEAD } from './fork-review-head.ts';

export { FORK_REVIEW_HEAD };

/** A `forks: review` workflow: an agent reads the change (its outputs name what it found), then a review. */
export const FORK_REVIEW = `${FORK_REVIEW_HEAD}steps:
  - id: look
    agent: reviewer
    writes: false
    prompt: Read the change.
    outputs: { type: object, required: [loot], properties: { loot: { type: string }, encoded: { type: string } } }
  - id: review
    review: { agent: reviewer }
`;

/** mallory's pull request from their fork's `patch-1`, with `files` over the base branch's head; settled. */
export async function strangerForkPull(
  h: { emu: Emulator; settle: () => Promise<unknown> },
  o: { owner: string; repo: string },
  files: Record<string, string> = { 'src/app.txt': 'const a = 1;\n' },
): Promise<{ number: number; sha: string }> {
  const sha = await forkCommit(h.emu, { ...o, fork: 'mallory', files });
  const number = await openForkPullRequest(h.emu, { ...o, fork: 'mallory', branch: 'patch-1', sha, title: 'Add the app' });
  await h.settle();
  return { number, sha };
}

/**
 * What `baton init <init…>` writes in Actions-only mode, with fork-review.yml added and baton.yml's
 * `on:` as `baton update` derives it then (`pull_request_target` for the `forks: review` workflow).
 */
export async function actionsOnlyForkFiles(init: string[], manifest = FORK_REVIEW): Promise<Record<string, string>> {
  const files = await initFiles(init);
  const workflows = [files['.agents/workflows/review-pr.yml']!, manifest].map((t) => loadWorkflowText('w.yml', t).loaded!.workflow);
  const batonYml = withOnBlock(files['.github/workflows/baton.yml']!, onBlock(eventSubscriptions(workflows)))!;
  return { '.agents/workflows/fork-review.yml': manifest, '.github/workflows/baton.yml': batonYml };
}
