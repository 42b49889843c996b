// Green only with the deliverable, over the fault corpus (corpus.ts): no run ends green while
// something it was to deliver is missing, every faulted run ends with a message naming what is
// missing, and the control runs end green with everything there.
import { describe, expect, it } from 'vitest';
import { corpusRun, FAULTS, runCorpus } from './corpus.ts';

describe('fault corpus: green only with the deliverable', () => {
  it('over 300 seeded runs: no silent green, each faulted run names what is missing, the controls end green', async () => {
    const r = await runCorpus(300);
    expect(r.wrong, JSON.stringify(r.wrong, null, 2)).toEqual([]);
    expect(r.silentGreen).toBe(0);
    expect(r.namedMissing).toBe(r.faulted);
    expect(r.cleanGreen).toBe(r.controls);
    expect(r.controls).toBeGreaterThan(0);
  });

  it('every fault of the corpus is met by some seed of the first 300', async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 300; seed++) seen.add((await corpusRun(seed)).fault);
    expect([...seen].sort()).toEqual([...FAULTS].sort());
  });
});
