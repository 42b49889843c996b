// The fault corpus: what goes wrong in the field, each fault a seeded run of one workflow that
// covers the step kinds with a deliverable (a writing agent step, labels, the pull request, a
// review). The runs go through the real engine and the hosts' shared loop (src/hosts/driver.ts)
// against a host double that keeps a small world — refs, commits, pull requests, reviews,
// labels — and answers every command as GitHub would, faults included; it reads deliverables
// back from that world. A run is silently green when it ends `succeeded` while a deliverable of
// one of its steps is not in the world. Used by tests/faults/corpus.test.ts and the bench
// (`silent_green_runs`); the end-to-end slice on the emulator is in tests/app and
// tests/actions-only (deliverable-faults.test.ts).
import { drive, type HostPort } from '../../src/hosts/driver.ts';
import { emptyState } from '../../src/engine/state.ts';
import type { Command, Deliverable, RunEvent, RunState } from '../../src/engine/index.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { prng } from '../emulator/faults.ts';

/** Every fault of the corpus; `none` is a control run, which must end green with everything there. */
export const FAULTS = [
  'none',
  'agent-no-diff',
  'artifact-missing',
  'artifact-partial',
  'review-refused-422',
  'pr-refused-422',
  'label-refused',
  'max-turns-mid-edit',
  'mcp-server-refused',
  'model-api-5xx',
  'job-cancelled',
  'outputs-off-schema',
  'restart-lost-merge',
  'restart-lost-pr',
  'restart-lost-review',
  'restart-lost-labels',
] as const;
export type Fault = (typeof FAULTS)[number];

/**
 * What the run's message must say for each fault: the step and what of its deliverable is
 * missing (or why its attempt failed). A run ending with any other message does not count as
 * naming what was missing.
 */
export const NAMES_WHAT_IS_MISSING: Record<Exclude<Fault, 'none'>, RegExp> = {
  'agent-no-diff': /step `implement` failed: .*without changing any file/,
  'artifact-missing': /step `implement` failed: .*no result artifact/,
  'artifact-partial': /step `implement` failed: .*outputs do not match the step's schema/,
  'review-refused-422': /step `review` failed: reported done, but missing baton's review on #1/,
  'pr-refused-422': /step `pr` failed: could not open the pull request/,
  'label-refused': /step `triage` failed: could not add the labels/,
  'max-turns-mid-edit': /step `implement` failed: .*max turns/,
  'mcp-server-refused': /step `implement` failed: .*MCP server/,
  'model-api-5xx': /step `implement` failed: .*model API answered 5\d\d/,
  'job-cancelled': /step `implement` failed: .*cancelled/,
  'outputs-off-schema': /step `implement` failed: .*outputs do not match the step's schema/,
  'restart-lost-merge': /step `implement` failed: reported done, but missing the step's commit \S+ on `baton\/deliver-7-\d+`/,
  'restart-lost-pr': /step `pr` failed: reported done, but missing pull request #1 at the run's head/,
  'restart-lost-review': /step `review` failed: reported done, but missing baton's review on #1/,
  'restart-lost-labels': /step `triage` failed: reported done, but missing the labels `bug` on #7/,
};

export const CORPUS_WORKFLOW: Workflow = {
  name: 'deliver',
  on: { labels: [], commands: ['deliver'], roles: ['admin', 'maintain', 'write'], bots: [] },
  inputs: {},
  agents: { coder: { uses: 'claude-code', timeoutMinutes: 30, env: {} }, reviewer: { uses: 'codex', env: {} } },
  budget: { maxSteps: 20, maxMinutes: 10_000, maxCostUsd: 10_000 },
  steps: [
    {
      id: 'implement',
      name: 'implement',
      kind: 'agent',
      agent: 'coder',
      needs: [],
      retries: 0,
      writes: true,
      env: {},
      prompt: 'Fix #${{ issue.number }}',
      outputs: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
    },
    { id: 'triage', name: 'triage', kind: 'label', needs: ['implement'], retries: 0, writes: false, env: {}, add: ['bug'], labels: ['bug'] },
    { id: 'pr', name: 'pr', kind: 'pull-request', needs: ['triage'], retries: 0, writes: false, env: {}, title: 'Fix #${{ issue.number }}', draft: true, labels: [] },
    { id: 'review', name: 'review', kind: 'review', needs: ['pr'], retries: 0, writes: false, env: {}, agent: 'reviewer', maxRounds: 1 },
  ],
} as Workflow;

interface Commit {
  tree: string;
  parent: string | null;
}

/** What GitHub holds, as far as the run's deliverables go. */
class World {
  commits = new Map<string, Commit>([['base0', { tree: 't-base', parent: null }]]);
  refs = new Map<string, string>();
  pulls = new Map<number, { head: string; branch: string; open: boolean }>();
  reviews = new Map<number, string[]>();
  labels = new Map<number, Set<string>>([[7, new Set()]]);
  /** Labels the repository has. */
  repoLabels = new Set(['bug']);

  holds(tip: string, sha: string): boolean {
    for (let at: string | null = tip; at !== null; at = this.commits.get(at)?.parent ?? null) if (at === sha) return true;
    return false;
  }
}

/** The host double: answers each command from the world, with the run's fault where it strikes. */
class FaultyHost implements HostPort {
  readonly world = new World();
  private made = 0;
  constructor(private readonly fault: Fault) {}

  async save(): Promise<void> {}

  async execute(c: Command, state: RunState): Promise<RunEvent[]> {
    const w = this.world;
    const at = state.clock;
    const key = `${c.key}/answer`;
    switch (c.type) {
      case 'create-run-branch':
        w.refs.set(c.branch, c.sha);
        return [];
      case 'dispatch-worker':
        return [this.work(c, at)];
      case 'merge-step-branch':
        // The App wrote the ref, and died before it was on GitHub: its successor believed the answer.
        if (this.fault !== 'restart-lost-merge') w.refs.set(c.into, c.commit);
        return [{ type: 'merge.completed', key, at, step: c.step, slot: c.slot, attempt: c.attempt, head: c.commit }];
      case 'ensure-pull-request':
        if (this.fault === 'pr-refused-422') return [{ type: 'pull-request.failed', key, at, step: c.step, error: 'GitHub answered 422: Validation Failed' }];
        if (this.fault !== 'restart-lost-pr') w.pulls.set(1, { head: w.refs.get(c.head)!, branch: c.head, open: true });
        return [{ type: 'pull-request.ensured', key, at, step: c.step, number: 1, url: 'https://github.test/o/r/pull/1' }];
      case 'post-review': {
        if (this.fault === 'review-refused-422') return [{ type: 'review.failed', key, at, step: c.step, attempt: c.attempt, error: 'GitHub refused the COMMENT review (422)' }];
        if (this.fault !== 'restart-lost-review') w.reviews.set(c.prNumber, [...(w.reviews.get(c.prNumber) ?? []), c.key]);
        return c.confirm ? [{ type: 'review.posted', key, at, step: c.step, attempt: c.attempt, reviewId: 1, url: 'u', event: c.event }] : [];
      }
      case 'apply-labels': {
        if (!c.thread) return [{ type: 'labels.applied', key, at, step: c.step, applied: [], unknown: [], note: 'no thread' }];
        if (this.fault === 'label-refused') return [{ type: 'labels.failed', key, at, step: c.step, error: 'GitHub refused the labels on #7 (403): Resource not accessible by integration' }];
        const applied = c.labels.filter((l) => w.repoLabels.has(l));
        if (this.fault !== 'restart-lost-labels') for (const l of applied) w.labels.get(c.thread.number)?.add(l);
        return [{ type: 'labels.applied', key, at, step: c.step, applied, unknown: c.labels.filter((l) => !w.repoLabels.has(l)) }];
      }
      case 'read-back':
        return [{ type: 'deliverable.read', key, at, step: c.step, opening: c.opening, seq: c.seq, missing: readBack(w, c.deliverable) }];
      default:
        return [];
    }
  }

  /** One worker attempt, as its result reaches baton (or fails to). */
  private work(c: Extract<Command, { type: 'dispatch-worker' }>, at: number): RunEvent {
    const ref = { key: `${c.key}/result`, at, step: c.step, slot: c.slot, attempt: c.attempt };
    if (c.kind === 'review') return { type: 'worker.finished', ...ref, outputs: { approved: true, summary: 'Looks right.', comments: [] } };
    const failed = (reason: 'crashed' | 'cancelled', error: string, extra: object = {}): RunEvent => ({ type: 'worker.failed', ...ref, reason, error, ...extra });
    switch (this.fault) {
      case 'agent-no-diff':
        return { type: 'worker.finished', ...ref, outputs: { summary: 'Fixed it.' }, commit: null };
      case 'artifact-missing':
        return failed('crashed', 'the worker uploaded no result artifact');
      case 'artifact-partial':
        // The bundle was cut short: its outputs file holds half an object.
        return { type: 'worker.finished', ...ref, outputs: {}, commit: this.commit(c.base) };
      case 'max-turns-mid-edit':
        return failed('crashed', 'the agent stopped at its max turns mid-edit', { checkpoint: this.commit(c.base) });
      case 'mcp-server-refused':
        return failed('crashed', 'MCP server `docs` refused the connection', { infrastructure: 'cli-crashed' });
      case 'model-api-5xx':
        return failed('crashed', 'the model API answered 503 mid-stream', { infrastructure: 'unavailable' });
      case 'job-cancelled':
        return failed('cancelled', 'the job was cancelled');
      case 'outputs-off-schema':
        return { type: 'worker.finished', ...ref, outputs: { summary: 42 }, commit: this.commit(c.base) };
      default:
        return { type: 'worker.finished', ...ref, outputs: { summary: 'Fixed it.' }, commit: this.commit(c.base) };
    }
  }

  private commit(parent: string): string {
    const sha = `c${++this.made}`;
    this.world.commits.set(sha, { tree: `t${this.made}`, parent });
    return sha;
  }
}

/** What of a deliverable the world does not hold, in words. */
function readBack(w: World, x: Deliverable): string[] {
  switch (x.kind) {
    case 'commit': {
      const tip = w.refs.get(x.branch);
      if (!tip || !w.holds(tip, x.head)) return [`\`${x.branch}\` does not hold ${x.head}`];
      return w.commits.get(x.head)?.tree === w.commits.get(x.from)?.tree ? ['no file changed'] : [];
    }
    case 'pull-request': {
      const pull = w.pulls.get(x.number);
      if (!pull || !pull.open) return [`GitHub has no open pull request #${x.number}`];
      return pull.head === x.head ? [] : [`#${x.number}'s head is ${pull.head}`];
    }
    case 'review':
      return (w.reviews.get(x.prNumber) ?? []).includes(x.marker) ? [] : [`GitHub has no review of baton's on #${x.prNumber}`];
    case 'labels': {
      const on = w.labels.get(x.thread.number) ?? new Set();
      const absent = x.labels.filter((l) => !on.has(l));
      return absent.length ? [`#${x.thread.number} does not have ${absent.join(', ')}`] : [];
    }
    case 'questions':
      return [];
  }
}

/** Whether every succeeded step's deliverable is in the world (what a person would look for). */
function everythingThere(w: World, state: RunState): boolean {
  const done = (id: string) => state.steps.find((s) => s.id === id)?.status === 'succeeded';
  const branch = state.runBranch;
  if (done('implement') && !(w.refs.get(branch) && w.refs.get(branch) !== 'base0' && w.holds(w.refs.get(branch)!, state.head))) return false;
  if (done('triage') && !w.labels.get(7)?.has('bug')) return false;
  if (done('pr') && !(w.pulls.get(1)?.open && w.pulls.get(1)?.head === state.head)) return false;
  if (done('review') && !(w.reviews.get(1)?.length)) return false;
  return true;
}

export interface CorpusRun {
  seed: number;
  fault: Fault;
  status: RunState['status'];
  reason: string | null;
  /** Ended `succeeded` while something it was to deliver is not there. */
  silentGreen: boolean;
  /** Ended with a message naming what was missing (faulted runs), or green with everything there (controls). */
  named: boolean;
}

/** Runs the corpus workflow once with the fault `seed` picks. */
export async function corpusRun(seed: number): Promise<CorpusRun> {
  const random = prng(seed);
  const fault = FAULTS[Math.floor(random() * FAULTS.length)]!;
  const host = new FaultyHost(fault);
  const start: RunEvent = {
    type: 'run.requested',
    key: `start-${seed}`,
    at: 1_700_000_000_000 + Math.floor(random() * 1e9),
    runId: `deliver-7-${seed}`,
    workflow: 'deliver',
    manifestHash: 'h',
    manifestCommit: 'base0',
    inputs: {},
    thread: { kind: 'issue', number: 7 },
    issue: { number: 7, title: 'It crashes', body: '' },
    repo: { owner: 'o', name: 'r' },
    baseBranch: 'main',
    baseSha: 'base0',
    actor: 'alice',
    permission: 'admin',
  };
  const { state } = await drive(host, CORPUS_WORKFLOW, emptyState(), start);
  const green = state.status === 'succeeded';
  const there = everythingThere(host.world, state);
  const silentGreen = green && (!there || fault !== 'none');
  const named = fault === 'none' ? green && there : !green && NAMES_WHAT_IS_MISSING[fault].test(state.reason ?? '');
  return { seed, fault, status: state.status, reason: state.reason, silentGreen, named };
}

export interface CorpusResult {
  runs: number;
  faulted: number;
  silentGreen: number;
  /** Faulted runs that ended with a message naming what was missing. */
  namedMissing: number;
  /** Control runs (no fault) that ended green with everything there. */
  cleanGreen: number;
  controls: number;
  /** The first runs that went wrong, for the message of a failing test. */
  wrong: CorpusRun[];
}

export async function runCorpus(runs: number, firstSeed = 1): Promise<CorpusResult> {
  const r: CorpusResult = { runs, faulted: 0, silentGreen: 0, namedMissing: 0, cleanGreen: 0, controls: 0, wrong: [] };
  for (let i = 0; i < runs; i++) {
    const run = await corpusRun(firstSeed + i);
    if (run.fault === 'none') {
      r.controls++;
      if (run.named) r.cleanGreen++;
    } else {
      r.faulted++;
      if (run.named) r.namedMissing++;
    }
    if (run.silentGreen) r.silentGreen++;
    if ((run.silentGreen || !run.named) && r.wrong.length < 5) r.wrong.push(run);
  }
  return r;
}
