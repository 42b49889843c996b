// Tracking issues meet GitHub's cap of 2,500 comments per issue (403 "Commenting is disabled on
// issues with more than 2500 comments": digitaldrywood/detent#1540). A schedule's and the CI
// doctor's tracking issue continues on a new one before it gets there — the new one names the
// old, the old says where runs went and is closed — and should GitHub refuse a comment anyway,
// a new tracking issue says so and the run starts there: never only a line in the App's log.
// The issues are filled by writing comments into the emulator's store (setup only: the paths
// under test are production's). Actions-only mode runs the same handlers (schedule.ts, doctor.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { readStateBlock } from '../../src/record/state-block.ts';
import { MAX_ISSUE_COMMENTS } from '../emulator/routes/issues.ts';
import { now } from '../emulator/store.ts';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const UPKEEP = `name: upkeep
on:
  schedule:
    - cron: "0 * * * *"
steps:
  - id: tidy
    ask: { questions: ["Anything to tidy?"] }
`;

interface Listed {
  number: number;
  state: string;
  body: string;
}

async function botIssues(h: Harness): Promise<Listed[]> {
  const all = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues', { ...o, state: 'all', per_page: 100 });
  return all
    .filter((i) => i.user?.login === 'baton[bot]')
    .map((i) => ({ number: i.number, state: i.state, body: i.body ?? '' }))
    .sort((a, b) => a.number - b.number);
}

async function runIds(h: Harness, number: number): Promise<string[]> {
  return (await h.comments(number)).flatMap((body) => {
    if (!body.includes('baton:record')) return [];
    const read = readStateBlock(body, undefined, { unsignedRead: true });
    return read.ok ? [read.state.runId] : [];
  });
}

/** People's comments on issue `number` until it has `total`, written straight into the store. */
function fill(h: Harness, number: number, total: number): void {
  const repo = h.emu.repo(o.owner, o.repo);
  const at = now();
  for (let n = h.emu.store.commentCount(repo.id, number); n < total; n++) {
    const id = h.emu.store.nextId();
    h.emu.store.comments.set(id, { id, repoId: repo.id, issueNumber: number, user: 'alice', body: `+1 (${n})`, createdAt: at, updatedAt: at, reactions: [], viaApp: false });
  }
}

/** A schedule with one run on its tracking issue: the clock at the second tick. */
async function scheduled(options: { trackingIssueComments?: number } = {}): Promise<{ h: Harness; first: number; tick: (iso: string) => Promise<void> }> {
  let clock = Date.parse('2030-01-07T10:30:00Z');
  const harness = await startHarness({ files: { '.agents/workflows/upkeep.yml': UPKEEP }, now: () => clock, ...options });
  const tick = async (iso: string) => {
    clock = Date.parse(iso);
    await harness.app.sweep();
    await harness.settle();
  };
  await tick('2030-01-07T10:30:00Z'); // first seen: its first run comes at the next tick
  await tick('2030-01-07T11:00:00Z');
  const [issue] = await botIssues(harness);
  return { h: harness, first: issue!.number, tick };
}

describe('app: tracking issues and GitHub\'s cap of 2,500 comments', () => {
  it('the emulator refuses a comment on an issue that has 2,500, as GitHub does', async () => {
    h = await startHarness({ files: {} });
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'busy' })).data.number;
    fill(h, issue, MAX_ISSUE_COMMENTS);
    const refused = await h.as('alice').rest.issues.createComment({ ...o, issue_number: issue, body: 'one more' }).then(
      () => 'ok',
      (err: { status: number; message: string }) => `${err.status} ${err.message}`,
    );
    expect(refused).toMatch(/^403 Commenting is disabled on issues with more than 2500 comments/);
  });

  it('a schedule\'s tracking issue with 2,000 comments is closed with a link, and the next run starts on a new one that names it', async () => {
    const s = await scheduled();
    h = s.h;
    expect(await runIds(h, s.first)).toEqual([`upkeep-${s.first}-1`]);
    fill(h, s.first, 2000);

    await s.tick('2030-01-07T12:00:00Z');
    const [old, next, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect([old!.number, old!.state, next!.state]).toEqual([s.first, 'closed', 'open']);
    expect(next!.body).toContain(`This issue continues #${s.first}: #${s.first} has 2000 comments`);
    expect((await h.comments(s.first)).at(-1)).toContain(`baton continues on #${next!.number}`);
    expect(await runIds(h, next!.number)).toEqual([`upkeep-${next!.number}-1`]);

    // The next tick stays on the new issue.
    await s.tick('2030-01-07T13:00:00Z');
    expect((await botIssues(h)).map((i) => i.number)).toEqual([s.first, next!.number]);
    expect(await runIds(h, next!.number)).toEqual([`upkeep-${next!.number}-1`, `upkeep-${next!.number}-2`]);
  });

  it('when GitHub refuses the run\'s comment (403 at the cap), a new tracking issue says so and the run starts there', async () => {
    // baton's own limit set past GitHub's, so that GitHub's refusal is what baton meets.
    const s = await scheduled({ trackingIssueComments: 3000 });
    h = s.h;
    fill(h, s.first, MAX_ISSUE_COMMENTS);

    await s.tick('2030-01-07T12:00:00Z');
    const [old, next, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect([old!.state, next!.state]).toEqual(['closed', 'open']);
    expect(next!.body).toContain(`This issue continues #${s.first}: GitHub refused baton's comment on #${s.first} (403: commenting is disabled on issues with more than 2500 comments)`);
    expect(await runIds(h, next!.number)).toEqual([`upkeep-${next!.number}-1`]);
  });
});

const DOCTOR = `name: doctor
on:
  workflow_run:
    workflows: [CI]
    branches: [main]
steps:
  - id: look
    ask: { questions: ["What broke?"] }
`;

const CI = `name: CI
on: { workflow_dispatch: {} }
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: exit 1
`;

describe('app: the CI doctor\'s tracking issue and the cap', () => {
  it('a full doctor issue: the open run keeps it with one last note; the first failure after the run continues on a new issue', async () => {
    h = await startHarness({ files: { '.agents/workflows/doctor.yml': DOCTOR, '.github/workflows/ci.yml': CI } });
    const fail = async () => {
      await h!.as('alice').request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...o, workflow_id: 'ci.yml', ref: 'main' });
      await h!.settle();
    };
    await fail();
    const [first] = await botIssues(h);
    fill(h, first!.number, 2000);

    // Two failures while the run is open: one note that the issue is full, nothing more.
    await fail();
    await fail();
    const notes = (await h.comments(first!.number)).filter((c) => c.includes('are not noted here'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`#${first!.number} has 2000 comments`);
    expect(await botIssues(h)).toHaveLength(1);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: first!.number, body: '/baton cancel' });
    await h.settle();
    await fail();
    const [old, next, ...more] = await botIssues(h);
    expect(more).toEqual([]);
    expect([old!.state, next!.state]).toEqual(['closed', 'open']);
    expect(next!.body).toContain(`This issue continues #${first!.number}`);
    expect(next!.body).toContain('- failed jobs: `test` (`failure`)');
    expect(await runIds(h, next!.number)).toEqual([`doctor-${next!.number}-1`]);
  });
});
