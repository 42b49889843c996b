// Realistic engine workloads for the engine figures: an N-step chain of agent steps,
// each prompt reading the previous step's outputs, driven by a host that answers every
// command the way GitHub would (dispatched → finished → merged).
import { decide } from '../../src/engine/decide.ts';
import type { RunEvent } from '../../src/engine/events.ts';
import { emptyState } from '../../src/engine/state.ts';
import type { RunState } from '../../src/engine/types.ts';
import type { Step, Workflow } from '../../src/manifest/types.ts';

export function chainWorkflow(steps: number): Workflow {
  const list: Step[] = [];
  for (let i = 0; i < steps; i++) {
    list.push({
      id: `step${i}`,
      name: `step${i}`,
      kind: 'agent',
      agent: 'coder',
      needs: i === 0 ? [] : [`step${i - 1}`],
      retries: 1,
      writes: true,
      env: {},
      prompt: i === 0 ? 'Fix #${{ issue.number }}: ${{ issue.title }}' : `Continue after: \${{ steps.step${i - 1}.outputs.summary }}`,
      outputs: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' }, files: { type: 'array', items: { type: 'string' } } } },
    });
  }
  return {
    name: 'bench',
    on: { labels: [], commands: ['bench'], roles: ['admin', 'maintain', 'write'], bots: [] },
    inputs: {},
    agents: { coder: { uses: 'claude-code', timeoutMinutes: 30, env: {} } },
    budget: { maxSteps: steps * 2, maxMinutes: 10_000, maxCostUsd: 10_000 },
    steps: list,
  };
}

export interface RecordedRun {
  workflow: Workflow;
  events: RunEvent[];
  state: RunState;
}

/** Runs the workflow to the end once, recording the events a host would have sent. */
export function recordRun(workflow: Workflow, outputText = 'Changed the parser and its tests.'): RecordedRun {
  const events: RunEvent[] = [];
  let state = emptyState();
  let at = Date.UTC(2025, 0, 1);
  let seq = 0;
  const send = (e: Omit<RunEvent, 'key' | 'at'>): ReturnType<typeof decide> => {
    const event = { ...e, key: `d${++seq}`, at: (at += 1_000) } as RunEvent;
    events.push(event);
    const out = decide(state, event, workflow);
    state = out.state;
    return out;
  };
  let pending = send({
    type: 'run.requested',
    runId: 'bench-1',
    workflow: workflow.name,
    manifestHash: 'h',
    manifestCommit: 'c',
    inputs: {},
    thread: { kind: 'issue', number: 1 },
    issue: { number: 1, title: 'Bench', body: '' },
    baseBranch: 'main',
    baseSha: 'base',
    actor: 'a',
    permission: 'admin',
  } as Omit<RunEvent, 'key' | 'at'>).commands;
  let heads = 0;
  while (pending.length > 0 && state.status === 'running') {
    const next = [];
    for (const c of pending) {
      if (c.type === 'dispatch-worker') {
        const ref = { step: c.step, slot: c.slot, attempt: c.attempt };
        next.push(...send({ type: 'worker.dispatched', ...ref, workflowRunId: seq, url: `https://example.test/runs/${seq}` } as never).commands);
        next.push(
          ...send({
            type: 'worker.finished',
            ...ref,
            outputs: { summary: `${c.step}: ${outputText}`, files: ['src/a.ts', 'src/b.ts'] },
            commit: `commit-${c.step}`,
            usage: { costUsd: 0.12, inputTokens: 12_000, outputTokens: 3_000 },
          } as never).commands,
        );
      } else if (c.type === 'merge-step-branch') {
        next.push(...send({ type: 'merge.completed', step: c.step, slot: c.slot, attempt: c.attempt, head: `head${++heads}` } as never).commands);
        next.push(...send({ type: 'time.passed' } as never).commands);
      }
    }
    pending = next;
  }
  if (state.status !== 'succeeded') throw new Error(`bench run ended ${state.status}: ${state.reason}`);
  return { workflow, events, state };
}
