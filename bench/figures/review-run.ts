// What one pull request review costs an installation in writes: the library's review-pr as
// `baton init --mode app` writes it, started by a pull request being opened (no label), on the
// emulator with the real App and worker, from the delivery to the review posted and the run's
// end. Writes are every request but GET/HEAD by the App (its installation and its JWT), from
// the emulator's request log, as writes_per_fix_issue_story counts them (bench/figures/stories.ts).
import { initFiles } from '../../tests/actions-only/harness.ts';
import { appRequests, startHarness } from '../../tests/app/harness.ts';
import type { Figure } from './figure.ts';

const o = { owner: 'acme', repo: 'widgets' };

export interface ReviewRun {
  writes: number;
  /** The writes by route (`METHOD /path/{template}`), to see which carry nothing new. */
  writesByRoute: Record<string, number>;
}

/** Opens one pull request as a maintainer and lets its review run end; counts the App's writes. */
export async function reviewRun(): Promise<ReviewRun> {
  const files = await initFiles(['--mode', 'app', '--workflows', 'review-pr']);
  const h = await startHarness({
    files,
    agents: { 'review/review': [{ output: { approved: false, summary: 'Looked at src/app.txt.', comments: [{ path: 'src/app.txt', line: 2, body: 'Name it.', suggestion: 'const TWO = 2;' }] } }] },
    roles: { alice: 'admin', bob: 'write' },
  });
  try {
    const bob = h.as('bob');
    const main = (await bob.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
    await bob.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: main });
    await bob.rest.repos.createOrUpdateFileContents({ ...o, path: 'src/app.txt', branch: 'feature', message: 'Add the app', content: Buffer.from('one\ntwo\nthree\n').toString('base64') });
    const before = appRequests(h.emu).length;
    const pull = (await bob.rest.pulls.create({ ...o, title: 'Add the app', head: 'feature', base: 'main', body: 'Please review.' })).data.number;
    await h.settle();
    const reviews = (await bob.rest.pulls.listReviews({ ...o, pull_number: pull })).data;
    const record = await h.record(pull);
    if (reviews.length !== 1 || !record.includes('— succeeded')) throw new Error(`the review run did not end with its review posted (${reviews.length} reviews)`);
    const writes = appRequests(h.emu).slice(before).filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    return { writes: writes.length, writesByRoute: writes.reduce<Record<string, number>>((m, r) => ((m[r.route] = (m[r.route] ?? 0) + 1), m), {}) };
  } finally {
    await h.close();
  }
}

let cached: Promise<ReviewRun> | undefined;

export const writesPerReviewRun: Figure = {
  name: 'writes_per_review_run',
  description: "the App's writes (every request but GET/HEAD) for one review-pr run started by a pull request opened, to its review posted and the run's end, from the emulator's log",
  unit: 'writes',
  async measure() {
    return (await (cached ??= reviewRun())).writes;
  },
};
