// The app killed between two API calls of a run and restarted, with the deliveries it
// missed redelivered in order: the run finishes and no step attempt is dispatched twice.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, startHarness, type Harness } from './harness.ts';

const FLOW = `name: flow
on: { labels: ["baton:flow"] }
steps:
  - id: one
    run: echo one > one.txt
  - id: two
    run: echo two > two.txt
  - id: pr
    pull-request: { title: "Flow for #\${{ issue.number }}" }
`;
const o = { owner: 'acme', repo: 'widgets' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function runOnce(killAfter?: number): Promise<{ calls: number; titles: string[]; record: string; dispatches: number; checkNames: string[] }> {
  h = await startHarness({ files: { '.agents/workflows/flow.yml': FLOW } });
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Flow', body: '' })).data;
  if (killAfter !== undefined) h.killAfter(killAfter);
  await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:flow'] });
  await h.settle();
  if (killAfter !== undefined) {
    await h.restart();
    await h.settle();
  }
  const calls = appRequests(h.emu).length;
  const titles = [...h.runner.store.runs.values()].map((r) => r.displayTitle);
  const record = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.filter((c) => c.body?.includes('baton:record')).map((c) => c.body!);
  const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/flow-${issue.number}-1` })).data.object.sha;
  const checkNames = (await alice.rest.checks.listForRef({ ...o, ref: head })).data.check_runs.map((c) => `${c.name}:${c.conclusion}`);
  const dispatches = appRequests(h.emu).filter((r) => r.route.endsWith('/dispatches')).length;
  h.emu.assertNoViolations();
  await h.close();
  h = undefined;
  expect(record).toHaveLength(1);
  return { calls, titles, record: record[0]!, dispatches, checkNames };
}

describe('app: restarts', () => {
  // Kill points spread over the run's ~30 app-side calls (the reference run counts them).
  it.each([3, 12, 23])('finishes after being killed after call %i, dispatching nothing twice', async (k) => {
    const r = await runOnce(k);
    expect(r.record).toContain('— succeeded');
    expect(new Set(r.titles).size).toBe(r.titles.length);
    expect(r.titles).toHaveLength(2);
    expect(r.dispatches).toBe(2);
    expect(r.checkNames.filter((n) => n.startsWith('baton / flow:'))).toEqual(['baton / flow:success']);
  }, 60_000);
});
