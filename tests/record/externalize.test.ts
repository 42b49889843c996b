// Large outputs moved out of the status comment and back (docs/architecture.md §4): the record of a
// 200-step run with large distinct outputs fits, and loading restores the state exactly.
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../src/engine/index.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import {
  OUTPUT_REF_KEY,
  OutputMismatchError,
  externalize,
  hasOutputRefs,
  internalize,
  isOutputRef,
  relabel,
  sha256Of,
  type OutputBlob,
} from '../../src/record/externalize.ts';
import { MAX_COMMENT_CHARS, RecordTooLargeError, fitRecord, renderRecord } from '../../src/record/render.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { viewOfState } from '../../src/record/view.ts';
import { run as runStep, workflow } from '../engine/builder.ts';
import { Run } from '../engine/harness.ts';

function chain(n: number): Workflow {
  return workflow(Array.from({ length: n }, (_, i) => runStep(`s${i}`, { name: `Step ${i}`, run: 'make' })), { name: 'big', budget: { maxSteps: 1000 } });
}

/** Random text: it does not compress, as real agent summaries barely do in 2k pieces. */
function noise(seed: number, length: number): string {
  let s = seed;
  return Array.from({ length }, () => String.fromCharCode(33 + ((s = (s * 48271) % 2147483647) % 90))).join('');
}

function bigRun(n = 200, chars = 2000): { wf: Workflow; state: RunState } {
  const wf = chain(n);
  const run = new Run(wf);
  run.start();
  for (let i = 0; i < n; i++) run.complete(`s${i}`, { summary: noise(i + 1, chars), files: ['src/a.ts'] });
  return { wf, state: run.state };
}

function storeOf(blobs: OutputBlob[]): Map<string, string> {
  return new Map(blobs.map((b) => [b.id, b.json]));
}

describe('externalize', () => {
  it('makes the record of a 200-step run with large distinct outputs fit, moving out only what it must', () => {
    const { wf, state } = bigRun();
    expect(() => renderRecord(state, wf)).toThrow(RecordTooLargeError);
    const before = structuredClone(state);
    const { state: small, blobs } = fitRecord(state, wf);
    expect(state).toEqual(before); // the input is not touched
    const body = renderRecord(small, wf);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(body).toContain('(output kept in the check run)');
    expect(blobs.length).toBeGreaterThan(0);
    expect(blobs.length).toBeLessThan(200); // the fewest: some outputs stay in the comment
    // One fewer would not fit: put the last (smallest) moved output back.
    const last = blobs[blobs.length - 1]!;
    const fewer = structuredClone(small);
    for (const s of fewer.steps) {
      if (isOutputRef(s.outputs) && s.outputs[OUTPUT_REF_KEY].id === last.id) {
        s.outputs = JSON.parse(last.json);
        s.jobs[0]!.outputs = JSON.parse(last.json);
      }
    }
    expect(() => renderRecord(fewer, wf)).toThrow(RecordTooLargeError);
    for (const b of blobs) {
      expect(b.json.length).toBeLessThanOrEqual(65_535);
      expect(sha256Of(b.json)).toBe(b.sha256);
    }
    expect(small.steps.filter((s) => isOutputRef(s.outputs)).length).toBe(blobs.length);
    expect(readStateBlock(body)).toEqual({ ok: true, state: small, gen: 0 });
  });

  it('chooses the largest outputs first', () => {
    const wf = chain(3);
    const run = new Run(wf);
    run.start();
    run.complete('s0', { summary: noise(1, 300) });
    run.complete('s1', { summary: noise(2, 5000) });
    run.complete('s2', { summary: noise(3, 1000) });
    const measure = (st: RunState): number => JSON.stringify(st).length;
    const { state, blobs } = externalize(run.state, { limit: measure(run.state) - 4000, measure });
    expect(blobs.map((b) => b.step)).toEqual(['s1']);
    expect(isOutputRef(state.steps[1]!.outputs)).toBe(true);
    expect(isOutputRef(state.steps[0]!.outputs)).toBe(false);
  });

  it('leaves a state that fits as it is', () => {
    const wf = chain(2);
    const run = new Run(wf);
    run.start();
    run.complete('s0', { summary: 'short' });
    const out = externalize(run.state, { limit: MAX_COMMENT_CHARS });
    expect(out).toEqual({ state: run.state, blobs: [] });
  });

  it('internalize restores the state exactly, reading each blob once', async () => {
    const { state } = bigRun();
    const { state: small, blobs } = externalize(state, { limit: 40_000 });
    expect(hasOutputRefs(small)).toBe(true);
    const store = storeOf(blobs);
    const asked: string[] = [];
    const back = await internalize(small, async (ref) => {
      asked.push(ref.id);
      return store.get(ref.id)!;
    });
    expect(back).toEqual(state);
    expect(hasOutputRefs(back)).toBe(false);
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.length).toBe(blobs.length);
  });

  it('internalize asks for every stored output before it awaits any (reads go out together)', async () => {
    const { state } = bigRun();
    const { state: small, blobs } = externalize(state, { limit: 40_000 });
    const store = storeOf(blobs);
    let inFlight = 0;
    let most = 0;
    await internalize(small, async (ref) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return store.get(ref.id)!;
    });
    expect(blobs.length).toBeGreaterThan(1);
    expect(most).toBe(blobs.length);
  });

  it('relabels provisional ids with where the blobs were stored', async () => {
    const { state } = bigRun(20);
    const { state: small, blobs } = externalize(state, { limit: 20_000 });
    const ids = new Map(blobs.map((b, i) => [b.id, String(1000 + i)]));
    const stored = new Map(blobs.map((b, i) => [String(1000 + i), b.json]));
    const labelled = relabel(small, ids);
    const refs = labelled.steps.flatMap((s) => (isOutputRef(s.outputs) ? [s.outputs[OUTPUT_REF_KEY].id] : []));
    expect(refs.length).toBe(blobs.length);
    expect(refs.every((id) => stored.has(id))).toBe(true);
    expect(await internalize(labelled, async (ref) => stored.get(ref.id)!)).toEqual(state);
  });

  it('refuses a tampered blob and says which step', async () => {
    const { state } = bigRun(20);
    const { state: small, blobs } = externalize(state, { limit: 20_000 });
    const target = blobs[0]!;
    const store = storeOf(blobs);
    store.set(target.id, target.json.replace(/"summary":"./, '"summary":"#'));
    const load = internalize(small, async (ref) => store.get(ref.id)!);
    await expect(load).rejects.toThrow(OutputMismatchError);
    await expect(load).rejects.toThrow(`step \`${target.step}\``);
  });

  it('keeps one blob for equal outputs of a step and its job', () => {
    const { state } = bigRun(3, 100);
    const big = { summary: noise(9, 4000) };
    state.steps[1]!.outputs = big;
    state.steps[1]!.jobs[0]!.outputs = structuredClone(big);
    const measure = (st: RunState): number => JSON.stringify(st).length;
    const { state: small, blobs } = externalize(state, { limit: measure(state) - 5000, measure });
    expect(blobs).toHaveLength(1);
    expect(small.steps[1]!.jobs[0]!.outputs).toEqual(small.steps[1]!.outputs);
    expect(isOutputRef(small.steps[1]!.outputs)).toBe(true);
  });

  it('moves fan-out items one by one and shows moved outputs in views', async () => {
    const { state } = bigRun(2, 100);
    const s = state.steps[0]!;
    s.fanOut = true;
    s.outputs = [{ summary: noise(7, 3000) }, { summary: 'small' }];
    const measure = (st: RunState): number => JSON.stringify(st).length;
    const { state: small, blobs } = externalize(state, { limit: measure(state) - 2000, measure, minChars: 1000 });
    expect(blobs).toHaveLength(1);
    const items = small.steps[0]!.outputs as unknown[];
    expect(isOutputRef(items[0])).toBe(true);
    expect(items[1]).toEqual({ summary: 'small' });
    expect(viewOfState(small).steps[0]!.outputs).toEqual(['(output kept in the check run)', { summary: 'small' }]);
    expect(await internalize(small, async () => blobs[0]!.json)).toEqual(state);
  });
});
