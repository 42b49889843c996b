// A worker dispatch GitHub would refuse for its size fails the attempt with a message
// instead of throwing out of the event (which every later delivery would throw again):
// GitHub takes at most 65,535 characters for all inputs of a workflow_dispatch together.
import { describe, expect, it } from 'vitest';
import { encodeTask } from '../../src/agents/task.ts';
import { dispatchWorker } from '../../src/hosts/github/dispatch.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { makeTask } from '../agents/helpers.ts';

/** A client that records requests and answers a dispatch with run details. */
function recording() {
  const sent: string[] = [];
  const gh = {
    owner: 'acme',
    repo: 'widgets',
    defaultBranch: 'main',
    botLogin: 'baton[bot]',
    workerWorkflow: 'baton-worker.yml',
    octokit: {
      request: async (route: string) => {
        sent.push(route);
        return { status: 200, data: { workflow_run_id: 7, html_url: 'u' } };
      },
    },
  } as unknown as RepoContext;
  return { gh, sent };
}

/** Whether the task with this prompt is accepted on its own (encodeTask refuses one over the limit). */
function fits(words: number): boolean {
  try {
    return encodeTask(makeTask({ prompt: noise(words) })).length <= 65_535;
  } catch {
    return false;
  }
}

/** Text that deflate cannot shrink much: its encoded task grows with `words`. */
function noise(words: number): string {
  return Array.from({ length: words }, (_, i) => ((i * 7919) % 65_521).toString(36)).join(' ');
}

describe('worker dispatch size', () => {
  it('fails the attempt when the task alone is over the limit, sending nothing', async () => {
    const { gh, sent } = recording();
    const events = await dispatchWorker(gh, makeTask({ prompt: noise(60_000) }), 1, false);
    expect(events).toMatchObject([{ type: 'worker.failed', reason: 'dispatch-failed', error: expect.stringContaining('a workflow_dispatch input holds at most 65535') }]);
    expect(sent).toEqual([]);
  });

  it('fails the attempt when the task fits but all inputs together do not', async () => {
    // The largest prompt whose task still fits on its own: the other inputs push it over.
    let lo = 1;
    let hi = 60_000;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    const task = makeTask({ prompt: noise(lo) });
    expect(encodeTask(task).length).toBeGreaterThan(65_535 - 200);
    const { gh, sent } = recording();
    const events = await dispatchWorker(gh, task, 1, false);
    expect(events).toMatchObject([{ type: 'worker.failed', reason: 'dispatch-failed', error: expect.stringMatching(/GitHub takes at most 65535 for all inputs of a workflow_dispatch/) }]);
    expect(sent).toEqual([]);
  });

  it('dispatches a task that fits', async () => {
    const { gh, sent } = recording();
    const events = await dispatchWorker(gh, makeTask({ prompt: 'small' }), 1, false);
    expect(events).toMatchObject([{ type: 'worker.dispatched', workflowRunId: 7 }]);
    expect(sent).toEqual(['POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches']);
  });
});
