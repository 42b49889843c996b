// Attack: an agent's output of N items dispatched N workers in one decision (and a large N
// broke the record after the dispatches went out). Defence: a for-each has a default bound
// of items (a manifest raises it with `max-items`); more items fail the step, with a message
// saying so, before any worker is dispatched.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ITEMS } from '../../src/engine/budget.ts';
import { appRequests, startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const fanOut = (maxItems = ''): string => `name: fan
on: { labels: ["baton:fan"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: plan
    agent: coder
    prompt: plan it
    writes: false
    outputs: { type: object, required: [tasks], properties: { tasks: { type: array } } }
  - id: impl
    agent: coder
    prompt: "do \${{ item }}"
    no-changes: succeed
    for-each: \${{ steps.plan.outputs.tasks }}
${maxItems}`;

async function start(workflow: string, items: number): Promise<number> {
  const tasks = Array.from({ length: items }, (_, i) => `task ${i}`);
  h = await startHarness({ files: { '.agents/workflows/fan.yml': workflow }, agents: { plan: [{ output: { tasks } }] } });
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Fan out', body: 'Please.' })).data;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:fan'] });
  await h.settle();
  return issue.number;
}

const dispatches = (h: Harness): number => appRequests(h.emu).filter((r) => r.route.endsWith('/dispatches')).length;

describe('for-each over an agent-chosen number of items', () => {
  it(`fails the step before any dispatch when an agent's output has more than ${DEFAULT_MAX_ITEMS} items`, async () => {
    const n = await start(fanOut(), 200);
    const record = await h!.record(n);
    expect(record).toContain(`run \`fan-${n}-1\` — failed`);
    expect(record).toContain(`for-each: 200 items, more than the ${DEFAULT_MAX_ITEMS} this step may fan out to (the default); no worker was started`);
    expect(record).toContain('raise `max-items` on step `impl`');
    // Only the planner was ever dispatched.
    expect(dispatches(h!)).toBe(1);
    expect(h!.agentCalls().filter((c) => c.prompt.includes('do task'))).toEqual([]);
  }, 60_000);

  it('fans out to more items when the manifest raises max-items', async () => {
    const n = await start(fanOut('    max-items: 25\n    max-parallel: 5\n'), 25);
    expect(await h!.record(n)).toContain(`run \`fan-${n}-1\` — succeeded`);
    expect(dispatches(h!)).toBe(26);
  }, 120_000);
});
