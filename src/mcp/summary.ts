// One shape for a run, whether it was read from a local record or from the status
// comment on GitHub: what an agent needs to decide what to do next.
import { z } from 'zod';
import { viewOfState } from '../record/view.ts';

export const runShape = z.object({
  runId: z.string(),
  workflow: z.string(),
  status: z.enum(['idle', 'running', 'succeeded', 'failed', 'cancelled', 'stopped']),
  reason: z.string().nullable(),
  branch: z.string(),
  head: z.string(),
  startedAt: z.number().nullable().optional(),
  finishedAt: z.number().nullable().optional(),
  budget: z.object({ steps: z.number(), costUsd: z.number() }).optional(),
  steps: z.array(
    z.object({
      id: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      attempt: z.number(),
      startedAt: z.number().nullable(),
      finishedAt: z.number().nullable(),
      outputs: z.unknown(),
      costUsd: z.number().nullable().optional(),
      cost: z.string().optional(),
    }),
  ),
  waiting: z.array(z.object({ step: z.string(), kind: z.enum(['ask', 'approve']), questions: z.array(z.string()), open: z.array(z.number()), message: z.string().nullable() })),
  prCommand: z.string().nullable().optional(),
  recordFile: z.string().optional(),
  url: z.string().optional(),
});

export type RunView = z.infer<typeof runShape>;

export { viewOfState };

/** What changed enough for `baton_wait` to return: status, a step's status, what it waits for. */
export function fingerprint(v: RunView | null): string {
  if (!v) return 'none';
  return JSON.stringify([v.status, v.steps.map((s) => `${s.id}:${s.status}:${s.attempt}`), v.waiting.map((w) => `${w.step}:${w.open.join(',')}`)]);
}
