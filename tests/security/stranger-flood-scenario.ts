// The stranger-flood scenario, shared by its security test (round3-budgets.test.ts) and the
// bench figure `maintainer_runs_refused_after_stranger_flood`: on a public repository whose
// `tri` workflow starts on every new issue (`authors: [any]`) with `budget.per-day` of three
// runs, someone without a role writes 1,001 comments and opens 30 issues in one day; then a
// maintainer asks for a run with `/baton tri`. The comments are put into the emulator's store
// directly (posting a thousand over HTTP only makes the test slow: nothing of baton's sees them
// arrive, as no webhook is sent for them); the issues are opened through the API, each with its
// webhook, so every one of them takes the App's start path.
import type { Emulator } from '../emulator/emulator.ts';
import { appRequests, type Harness } from '../app/harness.ts';

export const TRI = `name: tri
on:
  commands: [tri]
  issues: { types: [opened], authors: [any] }
budget: { per-day: { max-runs: 3 } }
steps:
  - id: greet
    run: echo hi > hello.txt
`;

const o = { owner: 'acme', repo: 'widgets' };

/** `n` comments by `login` on `issue`, written today: what a day's flood leaves in the repository. */
export function seedComments(emu: Emulator, issue: number, login: string, n: number): void {
  const store = emu.store;
  const repoId = store.repo(o.owner, o.repo)!.id;
  const stamp = new Date(emu.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (let i = 0; i < n; i++) {
    const id = store.nextId();
    store.comments.set(id, { id, repoId, issueNumber: issue, user: login, body: `+1 (${i})`, createdAt: stamp, updatedAt: stamp, reactions: [], viaApp: false });
  }
}

export interface Flood {
  /** Runs the strangers' issues started. */
  strangerRuns: number;
  /** The maintainer's thread, and whether `/baton tri` there started a run. */
  asked: number;
  maintainerStarted: boolean;
  /** Listings of the repository's comments the App made (the old count's read). */
  commentListings: number;
}

/** Floods with `comments` comments and `issues` issues by `eve`, then `alice` (admin) asks for a run. */
export async function strangerFlood(h: Harness, comments = 1001, issues = 30): Promise<Flood> {
  const eve = h.as('eve');
  const numbers: number[] = [];
  for (let i = 0; i < issues; i++) {
    numbers.push((await eve.rest.issues.create({ ...o, title: `Spam ${i}`, body: 'Look at this.' })).data.number);
    await h.settle();
    // The comments come after the first issue's start: every later start meets them.
    if (i === 0) seedComments(h.emu, numbers[0]!, 'eve', comments);
  }
  const alice = h.as('alice');
  const asked = (await alice.rest.issues.create({ ...o, title: 'A real bug', body: 'It crashes.' })).data.number;
  await h.settle();
  await alice.rest.issues.createComment({ ...o, issue_number: asked, body: '/baton tri' });
  await h.settle();
  const started = async (n: number, by: string): Promise<boolean> => (await h.comments(n)).some((b) => b.includes('baton:record') && b.includes(`run \`tri-${n}-`)) && (await h.runState(`tri-${n}-1`).then((s) => s.startedBy === by, () => false));
  let strangerRuns = 0;
  for (const n of numbers) if (await started(n, 'eve')) strangerRuns++;
  return {
    strangerRuns,
    asked,
    maintainerStarted: await started(asked, 'alice'),
    commentListings: appRequests(h.emu).filter((r) => r.route === 'GET /repos/{owner}/{repo}/issues/comments').length,
  };
}
