// One installation under a burst, and what it can carry under GitHub's write limits: 20 runs of a
// small workflow (one agent step, one `run` step) labelled at once on the emulator with the real
// App and worker, time compressed (the harness's timeScale: GitHub's pacing and the write
// budget's windows alike, nothing switched off). From the emulator's request log: how many of
// the installation's writes were served between each run's label and its first worker dispatch,
// and how many writes a run costs. Every write is assumed to count against GitHub's 500
// content-creating requests an hour (docs/performance.md, "Writes and stories").
import { appRequests, startHarness } from '../../tests/app/harness.ts';
import { DEFAULT_WRITE_BUDGET } from '../../src/app/write-budget.ts';
import { p95 } from './app.ts';
import type { Figure } from './figure.ts';

const RUNS = 20;
const o = { owner: 'acme', repo: 'widgets' };
export const SMALL = `name: small
on: { labels: ["baton:small"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: a, agent: coder, prompt: "a" }
  - { id: b, run: "echo b > b.txt" }
`;

interface Burst {
  /** Per run: installation writes served between its label and its first dispatch. */
  beforeDispatch: number[];
  /** The installation's writes over the whole burst, per run. */
  writesPerRun: number;
}

let cached: Promise<Burst> | undefined;
export const burst = (): Promise<Burst> => (cached ??= (async () => {
  const h = await startHarness({ files: { '.agents/workflows/small.yml': SMALL }, agents: { a: [{ write: { 'a.txt': 'a\n' } }] } });
  try {
    const alice = h.as('alice');
    const numbers: number[] = [];
    for (let i = 0; i < RUNS; i++) numbers.push((await alice.rest.issues.create({ ...o, title: `Small ${i}`, body: '' })).data.number);
    await Promise.all(numbers.map((n) => alice.rest.issues.addLabels({ ...o, issue_number: n, labels: ['baton:small'] })));
    await h.settle();
    const log = h.emu.requestLog;
    const isWrite = (r: (typeof log)[number]) => r.identity.startsWith('installation:') && r.method !== 'GET' && r.method !== 'HEAD';
    // Each accepted dispatch creates one workflow run, in order: the k-th dispatch is the k-th run.
    const dispatchAt = log.flatMap((r, i) => (isWrite(r) && r.route.endsWith('/dispatches') && r.status < 300 ? [i] : []));
    const runs = [...h.runner.store.runs.values()].sort((a, b) => a.id - b.id);
    const firstDispatch = new Map<number, number>();
    runs.forEach((run, k) => {
      const thread = Number(/^baton small-(\d+)-1 /.exec(run.displayTitle)?.[1]);
      if (!firstDispatch.has(thread) && dispatchAt[k] !== undefined) firstDispatch.set(thread, dispatchAt[k]!);
    });
    const beforeDispatch = numbers.map((n) => {
      const label = log.findIndex((r) => r.identity === 'user:alice' && r.route === 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels' && r.path.endsWith(`/issues/${n}/labels`));
      const dispatch = firstDispatch.get(n);
      if (label < 0 || dispatch === undefined) throw new Error(`run on #${n}: no label or no dispatch in the request log`);
      return log.slice(label + 1, dispatch).filter(isWrite).length;
    });
    const records = await Promise.all(numbers.map((n) => h.record(n)));
    const unfinished = records.filter((r) => !r.includes('— succeeded')).length;
    if (unfinished) throw new Error(`${unfinished} of ${RUNS} runs did not succeed`);
    return { beforeDispatch, writesPerRun: Math.round((appRequests(h.emu).filter(isWrite).length / RUNS) * 10) / 10 };
  } finally {
    await h.close();
  }
})());

export const burst20FirstDispatchP95Writes: Figure = {
  name: 'burst20_first_dispatch_p95_writes',
  description: "20 runs labelled at once in one installation: the installation's writes served between a run's label and its first worker dispatch, p95",
  unit: 'writes',
  // About a minute at GitHub's pacing of a write a second.
  target: { op: '<=', value: 60 },
  async measure() {
    return p95((await burst()).beforeDispatch);
  },
};

export const writesPerSimpleRun: Figure = {
  name: 'writes_per_simple_run',
  description: "the installation's writes per run of a small workflow (one agent step, one run step), over the burst of 20",
  unit: 'writes',
  async measure() {
    return (await burst()).writesPerRun;
  },
};

export const sustainedRunsPerInstallationHour: Figure = {
  name: 'sustained_runs_per_installation_hour',
  description: "runs of that small workflow one installation can carry an hour within GitHub's 500 content-creating requests, less the reserve kept for people's commands (writes_per_simple_run against the budget automatic writes may use)",
  unit: 'runs',
  async measure() {
    const automatic = Math.floor(DEFAULT_WRITE_BUDGET.perHour * (1 - DEFAULT_WRITE_BUDGET.reservePercent / 100));
    return Math.round((automatic / (await burst()).writesPerRun) * 10) / 10;
  },
};
