// The status comment of a 200-step run whose steps each return a large (2,000-character,
// distinct) output, as the App writes it: the largest outputs moved out to check runs
// (fitRecord), references to them kept in the state. Should that still not fit,
// renderRecord refuses the body and says how long it would have been: that length is the
// figure then.
import { relabel } from '../../src/record/externalize.ts';
import { fitRecord, renderRecord } from '../../src/record/render.ts';
import { prng } from '../../tests/emulator/faults.ts';
import { chainWorkflow, recordRun } from './engine-runs.ts';
import type { Figure } from './figure.ts';

const OUTPUT_CHARS = 2000;

export const recordChars200: Figure = {
  name: 'record_chars_200',
  description: `status comment of a 200-step run with ${OUTPUT_CHARS}-char outputs per step, after the largest outputs are moved to check runs`,
  unit: 'chars',
  target: { op: '<=', value: 65536 },
  measure() {
    const random = prng(200);
    const text = (): string => {
      let s = '';
      while (s.length < OUTPUT_CHARS) s += `${Math.floor(random() * 1e9).toString(36)} `;
      return s.slice(0, OUTPUT_CHARS);
    };
    const workflow = chainWorkflow(200);
    const { state } = recordRun(workflow);
    for (const step of state.steps) {
      const outputs = { summary: text(), files: ['src/a.ts'] };
      step.outputs = outputs;
      for (const job of step.jobs) job.outputs = outputs;
    }
    try {
      // As the App writes it: the references name the check runs (11-digit ids today).
      const { state: kept, blobs } = fitRecord(state, workflow);
      const ids = new Map(blobs.map((b, i) => [b.id, String(30_000_000_000 + i * 7919)]));
      return renderRecord(relabel(kept, ids), workflow).length;
    } catch (err) {
      const would = /would be (\d+) characters/.exec((err as Error).message);
      if (!would) throw err;
      return Number(would[1]);
    }
  },
};
