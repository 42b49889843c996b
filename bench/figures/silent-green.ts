// Green only with the deliverable, measured: 1,200 seeded runs of the fault corpus
// (tests/faults/corpus.ts) through the real engine and the hosts' shared loop, against a host
// double that keeps what GitHub would hold and injects the field's faults (agent exits 0 with no
// diff, result artifact missing or partial, review / pull request refused with 422, labels
// refused, max turns mid-edit, MCP server refused, model API 5xx mid-stream, job cancelled,
// outputs off schema, the App restarted between two writes so that a write it believed never
// landed), about one run in sixteen a control with no fault. The end-to-end slice on the
// emulator (App and Actions-only) is in the tests, not here.
import { runCorpus, type CorpusResult } from '../../tests/faults/corpus.ts';
import type { Figure } from './figure.ts';

export const CORPUS_RUNS = 1200;

let result: Promise<CorpusResult> | undefined;
const corpus = (): Promise<CorpusResult> => (result ??= runCorpus(CORPUS_RUNS));

export const silentGreenRuns: Figure = {
  name: 'silent_green_runs',
  description: `runs of the fault corpus (${CORPUS_RUNS} seeded runs, engine + host loop against a faulting host double) that ended green while a step's deliverable was missing`,
  unit: 'runs',
  target: { op: '<=', value: 0 },
  async measure() {
    return (await corpus()).silentGreen;
  },
};

export const faultedRunsNotNamingMissing: Figure = {
  name: 'faulted_runs_not_naming_missing',
  description: `faulted runs of the same corpus that did not end with a message naming the step and what was missing (faulted runs minus those that did; 0 = every faulted run said it)`,
  unit: 'runs',
  target: { op: '<=', value: 0 },
  async measure() {
    const r = await corpus();
    return r.faulted - r.namedMissing;
  },
};
