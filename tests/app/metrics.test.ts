// The App's Prometheus metrics at GET /metrics, checked against what really happened: the
// emulator's request log (every GitHub request the App made, its dispatches), the deliveries
// it answered, and a sweep's view of the runs.
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, startHarness, type Harness } from './harness.ts';
import { samples } from './prometheus.ts';
import { bearerMatches } from '../../src/app/metrics.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo hi > hi.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  delete process.env.BATON_METRICS_TOKEN;
});

const sum = (s: Map<string, number>, name: string) => [...s].filter(([k]) => k === name || k.startsWith(`${name}{`)).reduce((t, [, v]) => t + v, 0);

async function runStory(): Promise<Harness> {
  const x = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
  const alice = x.as('alice');
  const issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Hi', body: '' })).data;
  await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue.number, labels: ['baton:hello'] });
  await x.settle();
  // An event the App subscribes to but routes nowhere: an issue closed.
  await alice.rest.issues.update({ owner: 'acme', repo: 'widgets', issue_number: issue.number, state: 'closed' });
  await x.settle();
  return x;
}

describe('app: /metrics', () => {
  it('counts every GitHub request the App made, its dispatches, its deliveries and the rate limit left', async () => {
    h = await runStory();
    const res = await fetch(`http://127.0.0.1:${h.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const s = samples(await res.text());

    const log = appRequests(h.emu);
    expect(log.length).toBeGreaterThan(0);
    // Installation tokens are fetched inside Probot's auth layer, past the request hooks.
    const tokens = log.filter((r) => r.route.endsWith('/access_tokens')).length;
    expect(sum(s, 'baton_github_requests_total')).toBe(log.length - tokens);
    const dispatches = log.filter((r) => r.method === 'POST' && r.route.endsWith('/dispatches') && r.status < 300).length;
    expect(dispatches).toBeGreaterThan(0);
    expect(s.get('baton_steps_dispatched_total')).toBe(dispatches);
    expect(s.get('baton_deliveries_total{event="issues",outcome="handled"}')).toBeGreaterThanOrEqual(1);
    // Every delivery the App answered, by what it did with it.
    expect(sum(s, 'baton_deliveries_total')).toBe(h.emu.webhooks.deliveries.filter((d) => d.status === 200).length);
    // An event the App subscribes to but has no route for (an issue closed) is counted as ignored.
    expect(s.get('baton_deliveries_total{event="issues",outcome="ignored"}')).toBeGreaterThanOrEqual(1);
    const installation = [...s.keys()].find((k) => k.startsWith('baton_github_rate_limit_remaining{installation="1"'));
    expect(installation, [...s.keys()].join('\n')).toBeDefined();
    // Process metrics an operator looks at first.
    expect(s.has('process_resident_memory_bytes') || s.has('nodejs_heap_size_used_bytes')).toBe(true);
  });

  it('reports the runs a sweep found by state, and how long the sweep took', async () => {
    h = await runStory();
    await h.app.sweep();
    const s = samples(await (await fetch(`http://127.0.0.1:${h.port}/metrics`)).text());
    expect(s.get('baton_runs{state="succeeded"}')).toBe(1);
    expect(s.get('baton_sweep_duration_seconds_count')).toBe(1);
  });

  it('asks for the bearer token when BATON_METRICS_TOKEN is set', async () => {
    process.env.BATON_METRICS_TOKEN = 'scrape-me';
    h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
    expect((await fetch(`http://127.0.0.1:${h.port}/metrics`)).status).toBe(401);
    // Wrong guesses of every shape: same length, a prefix, the token and more, another scheme.
    for (const authorization of ['Bearer scrape-mf', 'Bearer scrape-m', 'Bearer scrape-me2', 'Basic scrape-me', 'scrape-me', 'Bearer ']) {
      expect((await fetch(`http://127.0.0.1:${h.port}/metrics`, { headers: { authorization } })).status, authorization).toBe(401);
    }
    const ok = await fetch(`http://127.0.0.1:${h.port}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('baton_github_requests_total');
  });
});

describe('bearerMatches (the /metrics token check, compared in constant time)', () => {
  it('accepts only the exact bearer token', () => {
    expect(bearerMatches('Bearer s3cret', 's3cret')).toBe(true);
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Bearer s3creT', 'Bearer s3cre', 'Bearer s3cret ', 'bearer s3cret', 'Token s3cret', 's3cret']) {
      expect(bearerMatches(header, 's3cret'), String(header)).toBe(false);
    }
  });
});
