// Property tests: a simulated host answers the engine's commands in random order,
// redelivers events, delivers stale and reordered ones, lets time pass, and people
// cancel, retry, approve and review at random moments. Whatever happens, the engine's
// guarantees must hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Command, DispatchWorker } from '../../src/engine/commands.ts';
import { decide } from '../../src/engine/decide.ts';
import type { RunEvent } from '../../src/engine/events.ts';
import { decodeCompact, encodeCompact, isTerminal, replay } from '../../src/engine/index.ts';
import { emptyState } from '../../src/engine/state.ts';
import { isAllowed } from '../../src/engine/roles.ts';
import type { Json, RunState } from '../../src/engine/types.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { agent, approve, ask, checks, pullRequest, review, run, workflow } from './builder.ts';

const T0 = Date.UTC(2025, 0, 1);
const KINDS = ['agent', 'agent', 'run', 'review', 'checks', 'ask', 'approve', 'pull-request'] as const;

const stepSpec = fc.record({
  kind: fc.constantFrom(...KINDS),
  items: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  maxParallel: fc.integer({ min: 1, max: 3 }),
  retries: fc.integer({ min: 0, max: 2 }),
  timeout: fc.option(fc.integer({ min: 5, max: 90 }), { nil: undefined }),
  writes: fc.boolean(),
  parallel: fc.boolean(),
  conditional: fc.boolean(),
  schema: fc.boolean(),
});

const workflowArb = fc
  .record({
    steps: fc.array(stepSpec, { minLength: 1, maxLength: 5 }),
    maxSteps: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined, freq: 2 }),
    maxMinutes: fc.option(fc.integer({ min: 30, max: 600 }), { nil: undefined }),
    maxCostUsd: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined, freq: 2 }),
  })
  .map(({ steps, maxSteps, maxMinutes, maxCostUsd }): Workflow => {
    let lastWriter: string | undefined;
    const built = steps.map((s, i) => {
      const id = `s${i}`;
      const common = {
        retries: s.retries,
        ...(s.parallel ? { needs: [] } : {}),
        ...(s.conditional ? { if: '${{ inputs.flag }}' } : {}),
        ...(s.timeout === undefined ? {} : { timeoutMinutes: s.timeout }),
      };
      const fanOut = s.items === undefined ? {} : { forEach: `\${{ fromJSON('${JSON.stringify(Array.from({ length: s.items }, (_, k) => `t${k}`))}') }}`, maxParallel: s.maxParallel };
      const fix = lastWriter === undefined ? {} : { fix: lastWriter };
      switch (s.kind) {
        case 'agent':
          if (s.writes) lastWriter = id;
          return agent(id, { ...common, ...fanOut, writes: s.writes, ...(s.schema ? { outputs: { type: 'object', required: ['ok'] } } : {}) });
        case 'run':
          return run(id, { ...common, ...fanOut, writes: s.writes });
        case 'review':
          return review(id, { ...common, ...fix, maxRounds: 1 });
        case 'checks':
          return checks(id, { ...common, ...fix, maxRounds: 1 });
        case 'ask':
          return ask(id, { ...common, timeoutHours: 2 });
        case 'approve':
          return approve(id, common);
        default:
          return pullRequest(id, common);
      }
    });
    return workflow(built, {
      inputs: { flag: { type: 'boolean', required: false, default: true } },
      budget: { maxSteps, maxMinutes, maxCostUsd },
    });
  });

/** A gate-heavy shape, so that fix rounds meet reordered and duplicated events often. */
const gateWorkflowArb = fc
  .record({ retries: fc.integer({ min: 0, max: 2 }), maxSteps: fc.option(fc.integer({ min: 2, max: 12 }), { nil: undefined }) })
  .map(({ retries, maxSteps }) =>
    workflow(
      [
        agent('impl', { retries }),
        review('rev', { fix: 'impl', maxRounds: 2, retries }),
        checks('ci', { fix: 'impl', maxRounds: 2 }),
        pullRequest('pr', { needs: ['impl'] }),
      ],
      { budget: { maxSteps } },
    ),
  );

const anyWorkflowArb = fc.oneof({ weight: 3, arbitrary: workflowArb }, { weight: 2, arbitrary: gateWorkflowArb });

/** One scripted move of the simulated world. */
const moveArb = fc.tuple(
  // Answers to workers and merges are the most common events in a real run.
  fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 2, arbitrary: fc.integer({ min: 0, max: 15 }) }),
  fc.nat(),
  fc.nat(),
  fc.boolean(),
);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface World {
  wf: Workflow;
  state: RunState;
  now: number;
  seq: number;
  heads: number;
  commands: Command[];
  delivered: RunEvent[];
  outbox: RunEvent[];
  dispatchKeys: Set<string>;
  dispatchCount: number;
}

const pick = <T>(xs: readonly T[], n: number): T | undefined => (xs.length === 0 ? undefined : xs[n % xs.length]);
const m0 = (n: number): number => Math.floor(n / 7) % 5;

/** The state without what every event changes (its key, the clock): what a command could change. */
function significant(state: RunState): string {
  return JSON.stringify({ ...state, appliedKeys: [], clock: 0 });
}

/** Events that people send, with the roles the workflow asks of them (undefined: not a person's command). */
function requiredRoles(wf: Workflow, event: RunEvent): readonly string[] | undefined {
  if (event.type === 'cancel.requested' || event.type === 'retry.requested' || event.type === 'questions.answered') return wf.on.roles;
  if (event.type === 'approval.given') return wf.steps.find((s) => s.kind === 'approve' && s.roles.length) && wf.steps.filter((s) => s.kind === 'approve').length === 1 ? (wf.steps.find((s) => s.kind === 'approve') as { roles: string[] }).roles : undefined;
  return undefined;
}

/** An event the world could produce now (answering some command, or a person acting). */
function produce(w: World, kind: number, n: number, flag: boolean): RunEvent | undefined {
  const key = `e${++w.seq}`;
  const at = w.now;
  const cost = flag ? { usage: { costUsd: (n % 4) * 0.75 } } : {};
  const dispatches = w.commands.filter((c): c is DispatchWorker => c.type === 'dispatch-worker');
  // Mostly answer an attempt that is running now; sometimes any earlier one (a stale,
  // late or duplicated report).
  const running = w.state.steps.flatMap((st) =>
    st.jobs.filter((j) => j.status === 'running').map((j) => dispatches.find((c) => c.step === st.id && c.slot === j.slot && c.attempt === j.attempt)),
  );
  const d = n % 5 === 0 ? pick(dispatches, n) : (pick(running, n) ?? dispatches.at(-1));
  switch (kind) {
    case 0:
    case 1:
    case 2: {
      if (!d) return undefined;
      const ref = { step: d.step, slot: d.slot, attempt: d.attempt };
      const outputs: Json = d.kind === 'review' ? { approved: flag, summary: 's', comments: [] } : n % 7 === 0 ? { bad: 1 } : { ok: true };
      return { type: 'worker.finished', key, at, ...ref, outputs, commit: d.writes && n % 3 !== 0 ? `c${key}` : null, ...cost };
    }
    case 3: {
      if (!d) return undefined;
      const reason = (['crashed', 'timed-out', 'cancelled', 'dispatch-failed', 'refused'] as const)[n % 5]!;
      return { type: 'worker.failed', key, at, step: d.step, slot: d.slot, attempt: d.attempt, reason, checkpoint: flag ? `cp${key}` : null, ...cost };
    }
    case 4: {
      const merges = w.commands.filter((c) => c.type === 'merge-step-branch');
      const m = n % 5 === 0 ? pick(merges, n) : merges.at(-1);
      if (!m || m.type !== 'merge-step-branch') return undefined;
      const ref = { step: m.step, slot: m.slot, attempt: m.attempt };
      return n % 6 === 0 ? { type: 'merge.conflicted', key, at, ...ref, files: ['a.ts'] } : { type: 'merge.completed', key, at, ...ref, head: `h${++w.heads}` };
    }
    case 5: {
      const names = flag ? [{ name: 'test', conclusion: n % 3 === 0 ? 'failure' : 'success' }] : [{ name: 'test', conclusion: null }];
      return { type: 'checks.reported', key, at, sha: n % 4 === 0 ? 'stale' : w.state.head, checks: names, complete: flag };
    }
    case 6: {
      const q = pick(w.commands.filter((c) => c.type === 'post-questions'), n);
      if (!q || q.type !== 'post-questions') return undefined;
      return { type: 'questions.answered', key, at, step: q.step, answers: q.questions.map(() => 'yes'), actor: 'ann', permission: flag ? 'write' : (['read', 'none', 'triage'] as const)[n % 3]! };
    }
    case 7: {
      const p = pick(w.commands.filter((c) => c.type === 'ensure-pull-request'), n);
      if (!p || p.type !== 'ensure-pull-request') return undefined;
      return flag ? { type: 'pull-request.ensured', key, at, step: p.step, number: 5, url: 'u' } : { type: 'pull-request.failed', key, at, step: p.step, error: '502' };
    }
    case 8:
      return { type: 'approval.given', key, at, actor: 'ann', permission: (['admin', 'write', 'read', 'none'] as const)[n % 4]! };
    case 9:
      return { type: 'review.submitted', key, at, actor: 'rev', permission: n % 3 === 0 ? 'read' : 'write', state: flag ? 'approved' : 'changes_requested', body: 'b', comments: [] };
    case 10:
      return n % 4 === 0 ? { type: 'cancel.requested', key, at, actor: 'ann', permission: flag ? 'write' : 'read' } : undefined;
    case 11: {
      const step = pick(w.wf.steps, n);
      return step ? { type: 'retry.requested', key, at, step: step.id, actor: 'ann', permission: (['write', 'admin', 'read', 'triage', 'none'] as const)[m0(n)]! } : undefined;
    }
    default:
      return undefined;
  }
}

/** Applies one event, checking the per-event guarantees. */
function deliver(w: World, event: RunEvent): void {
  const before = w.state;
  const seen = before.appliedKeys.includes(event.key);
  const snapshot = JSON.stringify(before);
  deepFreeze(before);
  const { state, commands } = decide(before, event, w.wf);
  expect(JSON.stringify(before)).toBe(snapshot);

  // Safety: a command from someone without the role changes nothing that time alone would not.
  const roles = requiredRoles(w.wf, event);
  if (roles && 'permission' in event && !isAllowed(event.permission, roles as never) && !seen) {
    const timeOnly = decide(before, { type: 'time.passed', key: event.key, at: event.at }, w.wf);
    expect(significant(state)).toBe(significant(timeOnly.state));
    expect(commands.filter((c) => c.type === 'dispatch-worker')).toEqual(timeOnly.commands.filter((c) => c.type === 'dispatch-worker'));
  }
  // Safety: a gate passes only on a qualifying act of a person with the role.
  for (const def of w.wf.steps) {
    const was = before.steps.find((st) => st.id === def.id)?.status;
    const now = state.steps.find((st) => st.id === def.id)?.status;
    if (was !== 'running' || now !== 'succeeded') continue;
    if (def.kind === 'approve') {
      expect(event.type).toBe('approval.given');
      if (event.type === 'approval.given') expect(isAllowed(event.permission, def.roles)).toBe(true);
    }
    if (def.kind === 'ask' && event.type === 'questions.answered') expect(isAllowed(event.permission, w.wf.on.roles)).toBe(true);
  }

  if (seen) {
    // Idempotency: a redelivered key changes nothing and commands nothing.
    expect(state).toBe(before);
    expect(commands).toEqual([]);
  }
  expect(commands.filter((c) => c.type === 'render-record').length).toBeLessThanOrEqual(1);

  // Terminal states stay terminal, except through an explicit retry.
  if (isTerminal(before.status) && event.type !== 'retry.requested') {
    expect(state.status).toBe(before.status);
    expect(commands.filter((c) => c.type === 'dispatch-worker')).toEqual([]);
  }

  const dispatched = commands.filter((c): c is DispatchWorker => c.type === 'dispatch-worker');
  for (const c of dispatched) {
    // A step attempt is dispatched at most once, ever.
    expect(w.dispatchKeys.has(c.key)).toBe(false);
    w.dispatchKeys.add(c.key);
    w.dispatchCount++;
  }
  if (dispatched.length > 0) {
    // Budgets: no dispatch beyond max-steps, after max-minutes, or once the cost is reached.
    const { maxSteps, maxMinutes, maxCostUsd } = w.wf.budget;
    if (maxSteps !== undefined) expect(w.dispatchCount).toBeLessThanOrEqual(maxSteps);
    if (maxMinutes !== undefined) expect(state.clock).toBeLessThan(state.startedAt! + maxMinutes * 60_000);
    if (maxCostUsd !== undefined) expect(state.budget.costUsd).toBeLessThan(maxCostUsd);
    expect(state.status).toBe('running');
  }
  expect(state.budget.steps).toBe(w.dispatchCount);

  w.state = state;
  w.commands.push(...commands);
  w.delivered.push(event);
}

function simulate(wf: Workflow, moves: [number, number, number, boolean][]): World {
  const w: World = { wf, state: emptyState(), now: T0, seq: 0, heads: 0, commands: [], delivered: [], outbox: [], dispatchKeys: new Set(), dispatchCount: 0 };
  deliver(w, {
    type: 'run.requested',
    key: 'start',
    at: T0,
    runId: 'p',
    workflow: wf.name,
    manifestHash: 'h',
    manifestCommit: 'c',
    inputs: {},
    thread: null,
    baseBranch: 'main',
    baseSha: 'h0',
    actor: 'ann',
    permission: 'admin',
  });
  for (const [kind, n, m, flag] of moves) {
    if (kind <= 11) {
      const event = produce(w, kind, n, flag);
      if (!event) continue;
      // Most events arrive at once; some wait in the outbox to be delivered out of order.
      if (m % 4 === 0) w.outbox.push(event);
      else deliver(w, event);
    } else if (kind === 12 && w.outbox.length > 0) {
      deliver(w, w.outbox.splice(m % w.outbox.length, 1)[0]!);
    } else if (kind === 13 && w.delivered.length > 0) {
      deliver(w, pick(w.delivered, m)!); // a redelivery
    } else {
      w.now += (n % 120) * 60_000;
      deliver(w, { type: 'time.passed', key: `t${++w.seq}`, at: w.now });
    }
  }
  return w;
}

describe('engine properties', () => {
  it('never dispatches an attempt twice, keeps terminal states, holds budgets, is idempotent and pure', () => {
    fc.assert(
      fc.property(anyWorkflowArb, fc.array(moveArb, { minLength: 10, maxLength: 80 }), (wf, moves) => {
        simulate(wf, moves);
      }),
      { numRuns: 150 },
    );
  });

  it('replaying the delivered events reproduces the live state, which survives encoding', () => {
    fc.assert(
      fc.property(anyWorkflowArb, fc.array(moveArb, { minLength: 10, maxLength: 80 }), (wf, moves) => {
        const w = simulate(wf, moves);
        const replayed = replay(wf, w.delivered, 'h');
        expect(replayed.state).toEqual(w.state);
        expect(replayed.commands).toEqual(w.commands);
        expect(decodeCompact(encodeCompact(w.state))).toEqual(w.state);
      }),
      { numRuns: 60 },
    );
  });

  it('makes progress: answering every command promptly finishes a run', () => {
    // Liveness, so that the safety properties above are not met by a run that never moves.
    fc.assert(
      fc.property(anyWorkflowArb, (wf) => {
        const w = simulate(wf, []);
        for (let i = 0; i < 200 && w.state.status === 'running'; i++) {
          const before = w.commands.length;
          answerAll(w);
          if (w.commands.length === before) break;
        }
        expect(isTerminal(w.state.status)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

/** A cooperative host: answers every open command of the latest state successfully. */
function answerAll(w: World): void {
  const s = w.state;
  const at = (w.now += 60_000);
  const key = (): string => `a${++w.seq}`;
  const stepOf = (id: string) => w.state.steps.find((st) => st.id === id)!;
  for (const st of s.steps) {
    const stepId = st.id;
    for (const job of st.jobs) {
      if (job.status !== 'running' || stepOf(stepId).jobs.find((j) => j.slot === job.slot)?.status !== 'running') continue;
      const d = w.commands.filter((c): c is DispatchWorker => c.type === 'dispatch-worker' && c.step === stepId && c.slot === job.slot).at(-1)!;
      const outputs: Json = d.kind === 'review' ? { approved: true, summary: 'ok', comments: [] } : { ok: true };
      deliver(w, { type: 'worker.finished', key: key(), at, step: stepId, slot: job.slot, attempt: job.attempt, outputs, commit: d.writes ? 'x' : null });
    }
  }
  const m = w.state.merging;
  if (m) deliver(w, { type: 'merge.completed', key: key(), at, ...m, head: `h${++w.heads}` });
  for (const def of w.wf.steps) {
    const st = stepOf(def.id);
    if (st.status !== 'running') continue;
    if (def.kind === 'ask') deliver(w, { type: 'questions.answered', key: key(), at, step: def.id, answers: st.ask!.questions.map(() => 'a'), actor: 'ann', permission: 'admin' });
    if (def.kind === 'approve') deliver(w, { type: 'approval.given', key: key(), at, step: def.id, actor: 'ann', permission: 'admin' });
    if (def.kind === 'pull-request') deliver(w, { type: 'pull-request.ensured', key: key(), at, step: def.id, number: 1, url: 'u' });
    if (def.kind === 'checks') deliver(w, { type: 'checks.reported', key: key(), at, sha: w.state.head, checks: [{ name: 'test', conclusion: 'success' }] });
    // The step's deliverable read back: everything is there.
    const held = stepOf(def.id).delivering;
    if (stepOf(def.id).status === 'running' && held) deliver(w, { type: 'deliverable.read', key: key(), at, step: def.id, opening: stepOf(def.id).opening, seq: held.seq, missing: [] });
  }
}
