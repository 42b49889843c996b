// Several App processes behind a plain load balancer, no router: deliveries spread
// round-robin, each one also handed to the next replica at the same moment, one replica
// killed mid-event. Correctness comes from the claims on GitHub (hosts/github/lease.ts), not
// from any process's memory: every run ends as the one-process run of the same story does.
import { afterEach, describe, expect, it } from 'vitest';
import type { Harness } from '../app/harness.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { LEASE_PREFIX } from '../../src/hosts/github/lease.ts';
import { attempts, expectFlowSucceeded, flowHarness, labelFlow, o } from './scenario.ts';

let hs: Harness[] = [];
afterEach(async () => {
  for (const h of hs) await h.close();
  hs = [];
});

async function harness(replicas: number): Promise<Harness> {
  const h = await flowHarness({ replicas });
  hs.push(h);
  return h;
}

/** The run's final state as its record holds it, with what differs between two runs of one story (times, ids, shas) taken out. */
async function finalState(h: Harness, number: number): Promise<unknown> {
  const body = await h.record(number);
  const read = readStateBlock(body, undefined, { unsignedRead: true });
  if (!read.ok) throw new Error(read.problem);
  const text = JSON.stringify(read.state, (key, value: unknown) => {
    if (/^(at|.*At|clock|deadline|workflowRunId|url|commentId|durationMs)$/.test(key)) return undefined;
    if (typeof value === 'string' && /^[0-9a-f]{40}$/.test(value)) return '<sha>';
    if (typeof value === 'string') return value.replace(/delivery:[0-9a-f-]{36}/g, 'delivery:<id>').replace(/worker-run:\d+/g, 'worker-run:<id>').replace(/\/actions\/runs\/\d+/g, '/actions/runs/<id>').replace(/\b[0-9a-f]{7}\b/g, '<short sha>');
    return value;
  });
  const state = JSON.parse(text) as { appliedKeys?: string[] };
  // Which deliveries a run heard of first differs between processes; that it applied each once does not.
  state.appliedKeys = [...(state.appliedKeys ?? [])].sort();
  return state;
}

/** (run, step, slot, attempt) of every worker run the App processes dispatched (its run-name). */
function dispatchedAttempts(h: Harness): string[] {
  return attempts(h);
}

describe('reliability: three App replicas, no router', () => {
  it('deliveries round-robin, each also raced to another replica: the run ends as with one process, nothing twice', async () => {
    const one = await harness(1);
    const single = await labelFlow(one);
    await one.settle();
    await expectFlowSucceeded(one, single.number, single.runId);

    const h = await harness(3);
    const { number, runId } = await labelFlow(h);
    await h.settle();
    await expectFlowSucceeded(h, number, runId);
    // Every replica took part, and every delivery reached two of them.
    for (const app of h.apps) expect(app.requests).toBeGreaterThan(0);
    const attempts = dispatchedAttempts(h);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(await finalState(h, number)).toEqual(await finalState(one, single.number));
    // The claims are refs under refs/baton/leases/<run>/, one per event that changed the run.
    const claims = (await h.as('alice').request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...o, ref: `${LEASE_PREFIX.slice('refs/'.length)}${runId}/` })).data;
    expect(claims.length).toBeGreaterThan(3);
  }, 120_000);

  it('one replica killed mid-event: another takes the run over after the claim time-to-live, the run ends the same', async () => {
    const h = await harness(3);
    // The first replica to win a claim dies right after it: that event's record never comes from
    // it, and the replica that got the same delivery waits, then takes the run over.
    const claim = /^POST \S+\/git\/refs .*refs\/baton\/leases\/.* -> 201$/;
    let victim = -1;
    let takenOver = 0;
    for (const [i, app] of h.apps.entries()) {
      app.killAfterRequest((request) => victim === -1 && claim.test(request) && (victim = i) >= 0);
      const told = app.runs.onLease;
      app.runs.onLease = (r) => {
        takenOver += r.takenOver;
        told?.(r);
      };
    }
    const { number, runId } = await labelFlow(h);
    await h.settle();
    expect(h.apps[victim]!.dead).toBe(true);
    expect(h.apps.filter((a) => a.dead)).toHaveLength(1);
    expect(takenOver).toBeGreaterThanOrEqual(1);
    await expectFlowSucceeded(h, number, runId);
    const attempts = dispatchedAttempts(h);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(await h.comments(number).then((all) => all.filter((c) => c.includes('baton:record')).length)).toBe(1);
    // What the dead process logged is its death, not a finding.
    h.appErrors.length = 0;
  }, 120_000);
});
