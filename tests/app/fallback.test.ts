// The fallback agent end to end through the App and the real worker workflow: the repository
// has no secret for the step's agent (claude-code), so its worker job fails before the agent
// runs, twice, saying why in its result; the App then dispatches the step's next attempt with
// the fallback agent (codex), whose job completes the run; the status comment says so.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const workflow = `name: build
on: { labels: ["baton:build"] }
agents:
  coder: { uses: claude-code, fallback: backup }
  backup: { uses: codex }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
`;

describe('app: fallback agent', () => {
  it('after two authentication failures of the agent, runs the attempt with its fallback and says so in the record', async () => {
    h = await startHarness({ files: { '.agents/workflows/build.yml': workflow }, agents: { build: [{ write: { 'a.txt': 'built\n' } }] }, secrets: { ANTHROPIC_API_KEY: '' } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Build', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:build'] });
    await h.settle();

    const state = await h.runState(`build-${issue.number}-1`);
    expect(state.status).toBe('succeeded');
    expect(state.steps[0]!.jobs[0]).toMatchObject({ attempt: 3, failures: 0, fallback: 'backup' });
    expect(state.breakers?.coder).toMatchObject({ status: 'open', failures: 2, cause: 'authentication' });
    // Only the fallback's CLI ran: the agent's job stopped before starting it.
    expect(h.agentCalls().map((c) => c.name)).toEqual(['codex']);
    const record = await h.record(issue.number);
    expect(record).toMatch(/\| build \| done \| 3 \(backup, fallback\) \|/);
    expect(record).toMatch(/- `coder` \(claude-code\) failed twice on authentication; it was set aside for `backup` \(codex\) until \d\d:\d\d UTC/);
    const file = await alice.rest.repos.getContent({ ...o, path: 'a.txt', ref: `baton/build-${issue.number}-1` });
    expect(Buffer.from((file.data as { content: string }).content, 'base64').toString()).toBe('built\n');
  });
});
