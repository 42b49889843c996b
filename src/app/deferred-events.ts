// Events whose work GitHub's rate limits stopped after the throttling plugin's retries (octokit.ts):
// kept here and handed to the next sweep (sweeper.ts), which applies them again — an event's
// work is keyed (its delivery id), so what it did before the limit counts once.
//
// This list lives in the process: after a crash it is gone, and what survives is what GitHub
// holds. A run whose record was written is found again by the sweep from its branch and record
// (sweep.ts: its running workers looked up, its deadlines passed); what the deferred event
// itself would have added (a label that never became a run, a comment whose command was not
// applied) needs GitHub's redelivery (docs/operations.md).
import { retryDelayMs } from '../action/rate-limit.ts';

/**
 * A 403 or 429 that is one of GitHub's rate limits (the primary one spent, a secondary one): the
 * rule the Action's retries wait by (action/rate-limit.ts), so that both modes read an answer alike.
 */
export function isRateLimited(err: unknown): boolean {
  const status = (err as { status?: number } | null)?.status;
  return (status === 403 || status === 429) && retryDelayMs(err, 0) !== undefined;
}

export interface DeferredEvent {
  /** The delivery id: its key (what it did already counts once when applied again). */
  id: string;
  name: string;
  payload: unknown;
  /** How many times it met the limit. */
  tries: number;
}

/** Past this many, a further event is not kept (its delivery is logged for redelivery): memory stays bounded. */
export const MAX_DEFERRED_EVENTS = 10_000;

export class DeferredEvents {
  private readonly events = new Map<string, DeferredEvent>();

  /** Keeps the event for the next sweep; false when the list is full. */
  add(id: string, name: string, payload: unknown): boolean {
    const known = this.events.get(id);
    if (known) {
      known.tries++;
      return true;
    }
    if (this.events.size >= MAX_DEFERRED_EVENTS) return false;
    this.events.set(id, { id, name, payload, tries: 1 });
    return true;
  }

  /** Every kept event, oldest first, taken off the list (one that meets the limit again is added back). */
  take(): DeferredEvent[] {
    const all = [...this.events.values()];
    this.events.clear();
    return all;
  }

  get size(): number {
    return this.events.size;
  }
}
