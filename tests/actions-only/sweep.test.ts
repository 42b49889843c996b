// Actions-only mode's sweep: baton.yml's schedule (what `baton init --mode actions` writes)
// runs mode run with the `schedule` event, which sweeps the open runs — so deadlines pass
// with no other event. The Action's clock is real: deadlines here are seconds (a step's
// `timeout-minutes: 0.05`), and the test fires the schedule like GitHub's cron would, tick
// after tick, until the run has moved (GitHub's own schedule is every 5 minutes at best).
import { afterEach, describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS } from '../../src/app/prune.ts';
import { DEFAULT_CLAIM_GRACE_MS } from '../../src/hosts/github/lease.ts';
import { initFiles, startActionsOnly, type ActionsOnly } from './harness.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: ActionsOnly | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HUNG = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
    retries: 1
    timeout-minutes: 0.05
`;

const ASK = `name: asky
on: { labels: ["baton:ask"] }
steps:
  - id: ask
    ask: { questions: ["Which colour?"], timeout-hours: 0.001 }
  - id: after
    run: echo done > after.txt
`;

const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo hello > hello.txt
`;

const claims = async (h: ActionsOnly) =>
  ((await h.as('alice').paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: 'baton/leases/', per_page: 100 })) as Array<{ ref: string }>).map((r) => r.ref);

const record = async (h: ActionsOnly, n: number) =>
  (await h.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';

async function labelled(h: ActionsOnly, label: string): Promise<number> {
  const issue = (await h.as('alice').rest.issues.create({ ...o, title: `Try ${label}`, body: 'Please.', labels: [label] })).data;
  return issue.number;
}

/** One cron tick: the schedule fires, and its sweep run completes. */
async function tick(h: ActionsOnly): Promise<void> {
  const started = await h.runner.schedule(o.owner, o.repo);
  expect(started.map((r) => r.path)).toEqual(['.github/workflows/baton.yml']);
  await h.waitFor('the sweep run', () => started.every((r) => h.runner.store.runs.get(r.id)?.status === 'completed'));
  for (const r of started) expect(h.runner.store.runs.get(r.id)!.conclusion, h.runner.logs(r.id)).toBe('success');
}

/** Ticks until `done` holds (each tick as GitHub's cron would fire it, only closer together). */
async function tickUntil(h: ActionsOnly, what: string, done: () => Promise<boolean>): Promise<number> {
  for (let ticks = 1; ticks <= 30; ticks++) {
    await tick(h);
    if (await done()) return ticks;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the sweep never got to: ${what}`);
}

const workers = (h: ActionsOnly) => [...h.runner.store.runs.values()].filter((r) => r.path.endsWith('baton-worker.yml'));

describe('Actions-only mode: the scheduled sweep', () => {
  it('times out a worker that never reports and retries it, with no other event', async () => {
    // The first attempt's job gets stuck before its agent starts (an install step that hangs,
    // a runner gone quiet): it would report only at the job's own timeout-minutes, an hour on.
    const init = await initFiles(['--mode', 'actions']);
    const worker = init['.github/workflows/baton-worker.yml']!;
    const checkout = `      - uses: ${pinnedUses(GITHUB_ACTION_PINS.checkout)}\n`;
    expect(worker).toContain(checkout);
    const stuck = worker.replace(checkout, `      - env: { ATTEMPT: "\${{ inputs.attempt }}" }\n        run: if [ "$ATTEMPT" = 1 ]; then sleep 3600; fi\n${checkout}`);
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/build.yml': HUNG, '.github/workflows/baton-worker.yml': stuck }, agentScript: [{ write: { 'a.txt': 'a\n' } }] });
    const n = await labelled(h, 'baton:build');
    await h.waitFor('the first worker at work', () => workers(h!).some((r) => r.status === 'in_progress'));
    await tickUntil(h, 'a second attempt', async () => workers(h!).length === 2);
    await h.settle();
    expect(workers(h).map((r) => `${r.displayTitle.replace(/^.* build /, '')} ${r.conclusion}`)).toEqual(['#1 cancelled', '#2 success']);
    const body = await record(h, n);
    expect(body).toMatch(/build \| done \| 2 \|/);
    expect(body).toContain('succeeded');
  });

  it('ends a run whose budget.max-minutes are up, with no other event', async () => {
    const budgeted = ASK.replace('steps:', 'budget: { max-minutes: 0.05 }\nsteps:').replace(', timeout-hours: 0.001', '');
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/asky.yml': budgeted }, agentScript: [] });
    const n = await labelled(h, 'baton:ask');
    await h.settle();
    expect(await record(h, n)).not.toContain('max-minutes');
    await tickUntil(h, 'the end of the budget', async () => (await record(h!, n)).includes('budget: max-minutes 0.05 reached'));
  });

  it('deletes the claims of a finished run once its record is older than the grace period plus the margin on GitHub’s clock', async () => {
    // Each scheduled job is a new process that has seen no record before: only GitHub's clock
    // (the record's updated_at, the Date of the answer listing it) tells how old the record is.
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/hello.yml': HELLO }, agentScript: [] });
    const n = await labelled(h, 'baton:hello');
    await h.settle();
    expect(await record(h, n)).toContain('succeeded');
    const made = await claims(h);
    expect(made.length).toBeGreaterThan(0);
    await tick(h);
    expect(await claims(h)).toEqual(made);
    h.emu.clock.advance(DEFAULT_CLAIM_GRACE_MS);
    await tick(h);
    expect(await claims(h)).toEqual(made);
    h.emu.clock.advance(CLOCK_MARGIN_MS + 2_000);
    await tick(h);
    expect(await claims(h)).toEqual([]);
    expect(await record(h, n)).toContain('succeeded');
  });

  it('moves an ask step on at its timeout, with no other event', async () => {
    h = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/asky.yml': ASK }, agentScript: [] });
    const n = await labelled(h, 'baton:ask');
    await h.settle();
    expect(await record(h, n)).toContain('Which colour?');
    await tickUntil(h, 'the ask timeout', async () => (await record(h!, n)).includes('no answer within 0.001 hours'));
    // Said in the thread, once, to the person who started the run (the status comment's edit notifies nobody).
    const said = async () => (await h!.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: n, per_page: 100 })).map((c) => c.body ?? '').filter((b) => b.startsWith('⏰'));
    expect(await said()).toEqual([expect.stringContaining('⏰ @alice, step `ask` of run `asky-1-1` waited past its deadline: no answer within 0.001 hours. The run failed.')]);
    await tick(h);
    expect(await said()).toHaveLength(1);
  });
});
