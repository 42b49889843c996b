// What the App keeps in memory per finished run (docs/performance.md, "Memory per run"): 50 runs
// of the small workflow of the burst figures (one agent step, one `run` step) labelled in one
// installation on the emulator with the real App and worker; once every one has finished, what
// the App's run service holds for runs (RunService.retained: each kept run's state with its
// outputs whole, its status comment's body, markers and check run ids, and the outputs kept
// in process), as serialized UTF-8 JSON, over the 50. Serialized size, not heap: it counts what
// the App keeps per run and nothing else in the process (the emulator shares the heap).
import { openLabelled, startHarness } from '../../tests/app/harness.ts';
import type { Figure } from './figure.ts';
import { SMALL } from './write-budget.ts';

const RUNS = 50;

async function retainedPerFinishedRun(): Promise<number> {
  const h = await startHarness({ files: { '.agents/workflows/small.yml': SMALL }, agents: { a: [{ write: { 'a.txt': 'a\n' } }] } });
  try {
    const numbers: number[] = [];
    for (let i = 0; i < RUNS; i++) numbers.push(await openLabelled(h, 'baton:small', { title: `Small ${i}` }));
    await h.settle();
    const records = await Promise.all(numbers.map((n) => h.record(n)));
    const unfinished = records.filter((r) => !r.includes('— succeeded')).length;
    if (unfinished) throw new Error(`${unfinished} of ${RUNS} runs did not succeed`);
    return Math.round(h.app.runs.retained().bytes / RUNS);
  } finally {
    await h.close();
  }
}

export const retainedBytesPerFinishedRun: Figure = {
  name: 'retained_bytes_per_finished_run',
  description: "what the App keeps in memory per finished run (state, status comment body, markers, check run ids, outputs; serialized UTF-8 JSON), after 50 runs of the small workflow",
  unit: 'bytes',
  // A finished run holds nothing (its next event reads it from GitHub: src/hosts/github/memory.ts);
  // room for a small tombstone, never for its state or body (a few KB).
  target: { op: '<=', value: 256 },
  measure: retainedPerFinishedRun,
};
