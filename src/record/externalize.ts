// Large step outputs kept out of the status comment (docs/architecture.md §4): the state block must fit
// GitHub's 65,536 characters for any run size, so the largest outputs are replaced by
// references `{ "$baton-output": { id, sha256, chars } }` and their JSON is stored
// elsewhere (a check run's text, in App mode). Loading puts them back, checking each
// against its hash. Pure: the host chooses where blobs live and what their ids are.
// The engine never sees a reference — it always works on the full state.
import { createHash } from 'node:crypto';
import type { Json, RunState } from '../engine/index.ts';
import { writeStateBlock } from './state-block.ts';

export const OUTPUT_REF_KEY = '$baton-output';

export interface OutputRef {
  /** Where the blob is kept (a check run id in App mode). */
  id: string;
  /** Of the blob's JSON text. */
  sha256: string;
  /** Length of the blob's JSON text. */
  chars: number;
}

export interface OutputBlob {
  id: string;
  sha256: string;
  /** The output as JSON text (what `sha256` and `chars` are of). */
  json: string;
  /** The first step whose outputs (or whose job's outputs) this is. */
  step: string;
}

export interface ExternalizeOptions {
  /** The most `measure` may give for the state that is kept. */
  limit: number;
  /** Size of what is written for a state; default: its state block's length. */
  measure?: (state: RunState) => number;
  /** Id of a blob before it is stored; default its sha256 (longer than any real id, so measuring is conservative). */
  id?: (blob: { sha256: string; step: string }) => string;
  /** Outputs shorter than this (as JSON) are never moved; default 256. */
  minChars?: number;
}

export interface Externalized {
  state: RunState;
  blobs: OutputBlob[];
}

export class OutputsTooLargeError extends Error {}

export class OutputMismatchError extends Error {
  constructor(
    readonly step: string,
    readonly ref: OutputRef,
    why: string,
  ) {
    super(`the output of step \`${step}\` kept outside the status comment (${ref.id}) ${why}; it was changed or is not baton's, so the run's state is not trusted`);
    this.name = 'OutputMismatchError';
  }
}

export function isOutputRef(value: unknown): value is { [OUTPUT_REF_KEY]: OutputRef } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== OUTPUT_REF_KEY) return false;
  const ref = (value as Record<string, unknown>)[OUTPUT_REF_KEY] as Partial<OutputRef> | null;
  return typeof ref === 'object' && ref !== null && typeof ref.id === 'string' && typeof ref.sha256 === 'string' && typeof ref.chars === 'number';
}

export function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A place in the state holding one output: a step's or job's outputs, or one item of a fan-out step's outputs. */
interface Slot {
  step: string;
  get(s: RunState): Json;
  set(s: RunState, value: Json): void;
}

function slotsOf(state: RunState): Slot[] {
  const slots: Slot[] = [];
  state.steps.forEach((step, si) => {
    if (step.fanOut && Array.isArray(step.outputs)) {
      step.outputs.forEach((_, i) => {
        slots.push({ step: step.id, get: (s) => (s.steps[si]!.outputs as Json[])[i]!, set: (s, v) => void ((s.steps[si]!.outputs as Json[])[i] = v) });
      });
    } else {
      slots.push({ step: step.id, get: (s) => s.steps[si]!.outputs, set: (s, v) => void (s.steps[si]!.outputs = v) });
    }
    step.jobs.forEach((_, ji) => {
      slots.push({ step: step.id, get: (s) => s.steps[si]!.jobs[ji]!.outputs, set: (s, v) => void (s.steps[si]!.jobs[ji]!.outputs = v) });
    });
  });
  return slots;
}

/**
 * The state with the fewest, largest outputs replaced by references so that
 * `measure(state) <= limit`, and the blobs to store. Equal outputs share one blob. The
 * choice is deterministic (size, then position), so the same state gives the same result.
 */
export function externalize(state: RunState, opts: ExternalizeOptions): Externalized {
  const measure = opts.measure ?? ((s: RunState) => writeStateBlock(s).length);
  const minChars = opts.minChars ?? 256;
  if (measure(state) <= opts.limit) return { state, blobs: [] };
  // Candidates: distinct outputs (by content), largest total first.
  const groups = new Map<string, { json: string; step: string; slots: Slot[]; order: number }>();
  for (const slot of slotsOf(state)) {
    const value = slot.get(state);
    if (isOutputRef(value)) continue;
    const json = JSON.stringify(value);
    if (json.length < minChars) continue;
    const sha = sha256Of(json);
    const g = groups.get(sha);
    if (g) g.slots.push(slot);
    else groups.set(sha, { json, step: slot.step, slots: [slot], order: groups.size });
  }
  const ranked = [...groups.entries()]
    .map(([sha256, g]) => ({ sha256, ...g, weight: g.json.length * g.slots.length }))
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  const apply = (k: number): Externalized => {
    const next = structuredClone(state);
    const blobs: OutputBlob[] = [];
    for (const g of ranked.slice(0, k)) {
      const id = opts.id ? opts.id({ sha256: g.sha256, step: g.step }) : g.sha256;
      const ref: Json = { [OUTPUT_REF_KEY]: { id, sha256: g.sha256, chars: g.json.length } };
      for (const slot of g.slots) slot.set(next, ref);
      blobs.push({ id, sha256: g.sha256, json: g.json, step: g.step });
    }
    return { state: next, blobs };
  };
  const all = apply(ranked.length);
  if (measure(all.state) > opts.limit) {
    throw new OutputsTooLargeError(
      `run ${state.runId} does not fit its status comment even with its ${ranked.length} large outputs moved out (${measure(all.state)} characters, over ${opts.limit})`,
    );
  }
  // Smallest k that fits: removing outputs only shrinks the state, so search.
  let lo = 1;
  let hi = ranked.length;
  let best = all;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const tried = apply(mid);
    if (measure(tried.state) <= opts.limit) {
      best = tried;
      hi = mid;
    } else lo = mid + 1;
  }
  return best.blobs.length === lo ? best : apply(lo);
}

/** Replaces the ids of references (provisional ids → where the blobs were stored). */
export function relabel(state: RunState, ids: ReadonlyMap<string, string>): RunState {
  const next = structuredClone(state);
  for (const slot of slotsOf(next)) {
    const value = slot.get(next);
    if (!isOutputRef(value)) continue;
    const ref = value[OUTPUT_REF_KEY];
    const id = ids.get(ref.id);
    if (id !== undefined) slot.set(next, { [OUTPUT_REF_KEY]: { ...ref, id } });
  }
  return next;
}

/** Whether the state holds any reference. */
export function hasOutputRefs(state: RunState): boolean {
  return slotsOf(state).some((slot) => isOutputRef(slot.get(state)));
}

/**
 * The full state again: every reference resolved (once per id) and checked against its
 * hash and length. A mismatch throws OutputMismatchError naming the step.
 */
export async function internalize(state: RunState, resolve: (ref: OutputRef, step: string) => Promise<string>): Promise<RunState> {
  if (!hasOutputRefs(state)) return state;
  const next = structuredClone(state);
  const values = new Map<string, Promise<Json>>();
  const slots = slotsOf(next).filter((slot) => isOutputRef(slot.get(next)));
  // Every distinct output is asked for before any answer is awaited: the reads go out together.
  const pending: Array<{ slot: (typeof slots)[number]; loaded: Promise<Json> }> = [];
  for (const slot of slots) {
    const value = slot.get(next);
    if (!isOutputRef(value)) continue;
    const ref = value[OUTPUT_REF_KEY];
    const key = `${ref.id}@${ref.sha256}`;
    let loaded = values.get(key);
    if (!loaded) {
      loaded = (async () => {
        const text = await resolve(ref, slot.step);
        if (text.length !== ref.chars || sha256Of(text) !== ref.sha256) {
          throw new OutputMismatchError(slot.step, ref, `does not match its reference (sha256 ${ref.sha256.slice(0, 12)}…, ${ref.chars} characters)`);
        }
        try {
          return JSON.parse(text) as Json;
        } catch {
          throw new OutputMismatchError(slot.step, ref, 'is not JSON');
        }
      })();
      values.set(key, loaded);
      loaded.catch(() => undefined); // awaited below, in order; not an unhandled rejection meanwhile
    }
    pending.push({ slot, loaded });
  }
  for (const { slot, loaded } of pending) slot.set(next, structuredClone(await loaded));
  return next;
}
