// The App harness itself: it runs the app as `npm start` builds it (the worker workflow from
// `baton init`, Octokit's throttling and retries on) and fails a test whose deliveries the app
// did not take — GitHub does not redeliver, so a non-2xx answer is lost work.
import { afterEach, describe, expect, it } from 'vitest';
import { GITHUB_PACING_MS } from '../../src/app/octokit.ts';
import { appRequests, initWorkerWorkflow, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const ONE_STEP = `name: one
on: { labels: ["baton:one"] }
steps:
  - id: write
    run: echo hello > hello.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the App harness', () => {
  it('runs the worker workflow baton init writes', async () => {
    // In the runner's sandbox: the job as GitHub's runner user, its fence step really run.
    h = await startHarness({ files: { '.agents/workflows/one.yml': ONE_STEP }, sandbox: true });
    const committed = await h.as('alice').rest.repos.getContent({ ...o, path: '.github/workflows/baton-worker.yml' });
    const text = Buffer.from((committed.data as { content: string }).content, 'base64').toString('utf8');
    expect(text).toBe(await initWorkerWorkflow());
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'x', body: '' })).data;
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:one'] });
    await h.settle();
    expect(await h.record(issue.number)).toContain('— succeeded');
    const workers = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/baton-worker.yml');
    expect(workers).toHaveLength(1);
    const log = h.runner.logs(workers[0]!.id);
    expect(workers[0]!.conclusion, log).toBe('success');
    expect(log).toContain(`The job runs as runner`);
    expect(log).toContain('::notice::baton sandbox: in force: agent-user, packet-filter, resource-limits');
    expect(log).not.toContain('sudo is still available to the agent');
  }, 60_000);

  it('fails the test when a delivery\'s work fails after it was acknowledged, and when the app logs an error', async () => {
    h = await startHarness({ files: { '.agents/workflows/one.yml': ONE_STEP } });
    // Every read of the manifests fails: the delivery (answered at once) cannot be worked on
    // after the retries production makes.
    h.emu.faults.add({ kind: 'server-error', route: 'GET /repos/{owner}/{repo}/contents/{path}', times: Infinity, status: 502 });
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'x', body: '' })).data;
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:one'] });
    await h.settle();
    // The issue's `opened` delivery reads the manifests too (a workflow may start on it): both fail.
    expect(h.deliveryFailures().sort()).toEqual([expect.stringMatching(/^issues\.labeled [0-9a-f-]+: work failed$/), expect.stringMatching(/^issues\.opened [0-9a-f-]+: work failed$/)]);
    expect(h.appErrors.length).toBeGreaterThan(0);
    // Retried as production retries (plugin-retry: 3 more tries), not given up at once.
    expect(appRequests(h.emu).filter((r) => r.fault !== undefined).length).toBeGreaterThanOrEqual(4);
    const closing = h.close();
    h = undefined;
    await expect(closing).rejects.toThrow(/deliveries the app did not take[\s\S]*issues\.labeled/);
  }, 30_000);

  it('runs a run at GitHub\'s real pacing: the app\'s writes to one installation a second or more apart', async () => {
    h = await startHarness({ files: { '.agents/workflows/one.yml': ONE_STEP }, timeScale: 1 });
    const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'x', body: '' })).data;
    await h.as('alice').rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:one'] });
    await h.settle();
    expect(await h.record(issue.number)).toContain('— succeeded');
    const writes = appRequests(h.emu).filter((r) => r.method !== 'GET' && r.identity.startsWith('installation:') && !r.route.endsWith('/access_tokens'));
    expect(writes.length).toBeGreaterThanOrEqual(6);
    const gaps = writes.slice(1).map((w, i) => Date.parse(w.at) - Date.parse(writes[i]!.at));
    // Bottleneck spaces the writes' turns by a second; the emulator stamps their arrival, which
    // can lag a turn by a token fetch or a busy event loop, hence the margin. Unthrottled, the
    // gaps are the emulator's latency: tens of milliseconds.
    expect(Math.min(...gaps), JSON.stringify(writes.map((w) => [w.route, w.at]))).toBeGreaterThanOrEqual(GITHUB_PACING_MS.write * 0.75);
    // Acknowledge, then work: every delivery is answered long before GitHub's 10 s, although
    // the deliveries that start or move the run go on making paced calls for seconds after.
    const working = h.timings.filter((t) => t.calls.length);
    for (const t of h.timings) expect(t.answeredAt! - t.receivedAt).toBeLessThan(1000);
    expect(Math.max(...working.map((t) => Math.max(...t.calls) - t.answeredAt!))).toBeGreaterThan(GITHUB_PACING_MS.write * 3);
  }, 90_000);
});
