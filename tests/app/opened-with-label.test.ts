// An issue opened with a workflow's label: GitHub sends `issues.opened` and then
// `issues.labeled`, either may arrive first, and they may overlap. Exactly one run starts.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"], commands: [hello] }
steps:
  - id: greet
    run: echo hi > hello.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const o = { owner: 'acme', repo: 'widgets' };

async function openWithLabel(h: Harness): Promise<number> {
  const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Hi', body: '', labels: ['bug', 'baton:hello'] })).data;
  await h.settle();
  return issue.number;
}

async function expectOneRun(h: Harness, number: number): Promise<void> {
  const records = (await h.comments(number)).filter((b) => b.includes('baton:record'));
  expect(records).toHaveLength(1);
  expect(records[0]).toContain(`run \`hello-${number}-1\` — succeeded`);
  expect([...h.runner.store.runs.values()].map((r) => r.displayTitle)).toEqual([`baton hello-${number}-1 greet #1`]);
  h.emu.assertNoViolations();
}

describe('app: an issue opened with a label', () => {
  it('starts exactly one run (opened, then labeled)', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    const number = await openWithLabel(h);
    const sent = h.emu.webhooks.deliveries.filter((d) => d.event === 'issues').map((d) => d.action);
    expect(sent.slice(0, 3)).toEqual(['opened', 'labeled', 'labeled']);
    await expectOneRun(h, number);
  }, 40_000);

  it('starts exactly one run when labeled arrives before opened', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    h.emu.faults.addWebhook({ kind: 'reorder', event: 'issues.opened' });
    const number = await openWithLabel(h);
    expect(h.emu.faults.injected.map((f) => f.target)).toContain('issues.opened');
    await expectOneRun(h, number);
  }, 40_000);

  it('starts exactly one run when opened and labeled (each twice) overlap at the app', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    h.emu.webhooks.configure({ overlap: true });
    h.emu.faults.addWebhook({ kind: 'duplicate', event: 'issues', times: Infinity });
    const number = await openWithLabel(h);
    expect(h.emu.webhooks.mostInFlight()).toBeGreaterThanOrEqual(2);
    await expectOneRun(h, number);
  }, 40_000);
});

// A workflow that starts on its label and on `issues.opened` (the library's triage): an issue
// opened with that label (an issue template's) is one act, two deliveries, one run.
const BOTH = HELLO.replace('on: { labels: ["baton:hello"], commands: [hello] }', 'on: { labels: ["baton:hello"], commands: [hello], issues: { types: [opened] } }');

describe('app: an issue opened with the label of a workflow that also starts on issues opened', () => {
  it.each([
    ['in order', undefined],
    ['labeled first', 'reorder'],
    ['overlapping, each twice', 'overlap'],
  ] as const)('starts exactly one run (%s)', async (_, how) => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': BOTH } });
    if (how === 'reorder') h.emu.faults.addWebhook({ kind: 'reorder', event: 'issues.opened' });
    if (how === 'overlap') {
      h.emu.webhooks.configure({ overlap: true });
      h.emu.faults.addWebhook({ kind: 'duplicate', event: 'issues', times: Infinity });
    }
    const number = await openWithLabel(h);
    expect(h.emu.webhooks.deliveries.filter((d) => d.event === 'issues').map((d) => d.action)).toEqual(expect.arrayContaining(['opened', 'labeled']));
    await expectOneRun(h, number);
  }, 40_000);

  it('a label added once the run from the opening has ended starts a new run', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': BOTH } });
    const number = (await h.as('alice').rest.issues.create({ ...o, title: 'Hi', body: '' })).data.number;
    await h.settle();
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: number, labels: ['baton:hello'] });
    await h.settle();
    const records = (await h.comments(number)).filter((b) => b.includes('baton:record'));
    expect(records.map((b) => b.match(/run `([^`]+)` — (\w+)/)?.slice(1).join(' '))).toEqual([`hello-${number}-1 succeeded`, `hello-${number}-2 succeeded`]);
  }, 40_000);
});
