// Encoding and decoding the state of a finished 200-step run in the record's compact
// form (JSON, deflated, base64), as a host does on every event.
import { decodeCompact, encodeCompact } from '../../src/engine/codec.ts';
import { medianMs } from '../measure.ts';
import type { Figure } from './figure.ts';
import { chainWorkflow, recordRun } from './engine-runs.ts';

let cached: ReturnType<typeof recordRun> | undefined;
const run200 = (): ReturnType<typeof recordRun> => (cached ??= recordRun(chainWorkflow(200)));

export const stateRoundtripMs200: Figure = {
  name: 'state_roundtrip_ms_200',
  description: 'encode + decode (compact form) of a 200-step run’s state',
  unit: 'ms',
  target: { op: '<', value: 5 },
  measure() {
    const { state } = run200();
    return medianMs(() => decodeCompact(encodeCompact(state)), { warmup: 10, runs: 31 });
  },
};

export const stateCompactChars200: Figure = {
  name: 'state_compact_chars_200',
  description: 'size of that state in compact form (the status comment holds ≤ 65,536 chars)',
  unit: 'chars',
  measure() {
    return encodeCompact(run200().state).length;
  },
};
