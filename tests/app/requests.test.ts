// Requests per agent step, app side (docs/performance.md: ≤ 8, of which ≤ 1 comment edit), counted
// from the emulator's request log over a steady-state step: from the dispatch of step
// `b` up to (not including) the dispatch of step `c` — dispatch, result applied, merged,
// checks and record updated.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, chainWorkflow, startHarness, type Harness } from './harness.ts';

const CHAIN = chainWorkflow(3);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

export async function requestsPerAgentStep(): Promise<{ total: number; edits: number; routes: string[] }> {
  h = await startHarness({
    files: { '.agents/workflows/chain.yml': CHAIN },
    agents: { a: [{ write: { 'a.txt': 'a\n' } }], b: [{ write: { 'b.txt': 'b\n' } }], c: [{ write: { 'c.txt': 'c\n' } }] },
  });
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Chain', body: '' })).data;
  await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue.number, labels: ['baton:chain'] });
  await h.settle();
  const log = appRequests(h.emu);
  const dispatches = log.map((r, i) => (r.route.endsWith('/dispatches') ? i : -1)).filter((i) => i >= 0);
  // The artifact download redirects to blob storage on GitHub (not an API request): not counted.
  const window = log.slice(dispatches[1], dispatches[2]).filter((r) => !(r.route.endsWith('/{archive_format}') && r.status === 200));
  const edits = window.filter((r) => r.route === 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}').length;
  return { total: window.length, edits, routes: window.map((r) => `${r.method} ${r.route} ${r.status}`) };
}

describe('app: requests per agent step', () => {
  it('stays within 8 requests (one of them the claim on the run) and 1 comment edit per agent step', async () => {
    const r = await requestsPerAgentStep();
    expect(r.routes.length, r.routes.join('\n')).toBeLessThanOrEqual(8);
    expect(r.edits).toBeLessThanOrEqual(1);
    console.log(`requests per agent step: ${r.total} (${r.edits} comment edit)\n${r.routes.join('\n')}`);
  }, 30_000);
});
