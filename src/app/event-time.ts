// The App's own time per event, told apart from the time it spends waiting on GitHub.
// `timeEvent` runs an event's work inside an AsyncLocalStorage store; the request hook the
// metrics put on every Octokit (Metrics.watch) reports each request's interval to the store
// of the event that issued it. An event's GitHub time is the length of the UNION of its
// request intervals — requests issued together overlap, and that time was waited once — and
// the App's own time is the rest of its wall time.
//
// The request hook is the outermost one on the Octokit (the throttling and retry plugins'
// hooks are registered first, so they run inside it): a request's interval also holds its
// wait in the throttle's queue (GitHub's pacing, and Bottleneck's own timer ticks: ~10 ms a
// request even when nothing is paced), retries and their back-off, the installation token
// fetch the auth hook may make, and reading the answer's body. Octokit exposes no event for
// "the throttle let this request go", so the part on the wire is measured by handing each
// request a fetch that times itself (the `request.fetch` option Octokit reads per request):
// from the request leaving until GitHub's answer's headers arrive.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/** One event's time, in milliseconds. */
export interface EventTime {
  /** What the event was (the webhook's name, or `sweep`). */
  label: string;
  /** Start of the work to its end. */
  wallMs: number;
  /** The union of its GitHub requests' intervals, issue to answer (throttle waits and retries included). */
  githubMs: number;
  /** The part of `githubMs` with a request on the wire (sent, headers of the answer not yet in). */
  wireMs: number;
  /**
   * The part of `githubMs` with a request waiting in the client's throttle queue before it first
   * went out: GitHub's pacing (writes a second apart per installation), behind every run's writes.
   */
  queueMs: number;
  /** Waiting behind earlier events of the same run (queue.ts), outside any request of its own. */
  runWaitMs: number;
  /** wall − github − runWait: the App's own work (and event-loop waits behind other events' work). */
  appMs: number;
  /** Requests it issued. */
  requests: number;
}

/** A span of time, in performance.now() milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

interface EventClock {
  requests: Interval[];
  wire: Interval[];
  queue: Interval[];
  runWaits: Interval[];
}

/** One request's timer: `fetch` wraps the fetch it goes out with, `done` marks its answer (or failure). */
export interface RequestTimer {
  fetch(inner: typeof fetch): typeof fetch;
  done(): void;
}

const current = new AsyncLocalStorage<EventClock>();

/** Total length covered by `intervals`, each instant counted once however many cover it. */
export function unionMs(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  // The stretch being merged: every interval starting inside it extends it.
  let from = 0;
  let to = -Infinity;
  for (const { start, end } of sorted) {
    if (start > to) {
      if (to > from) total += to - from;
      from = start;
      to = end;
    } else if (end > to) {
      to = end;
    }
  }
  return to > from ? total + (to - from) : total;
}

/**
 * Starts timing a GitHub request for the event under way; undefined outside `timeEvent` (the
 * App's start-up), where nothing is timed. The store is read here, in the caller's context:
 * the throttle may send the request later from another event's callback.
 */
export function requestStarted(): RequestTimer | undefined {
  const clock = current.getStore();
  if (!clock) return undefined;
  const start = performance.now();
  let queued = true;
  return {
    // Retries send again through the same fetch: each try is its own interval on the wire.
    fetch: (inner) => async (input, init) => {
      const sent = performance.now();
      // The throttle lets a request go by calling its fetch: until the first try, it was queued.
      if (queued) clock.queue.push({ start, end: sent });
      queued = false;
      try {
        return await inner(input, init);
      } finally {
        clock.wire.push({ start: sent, end: performance.now() });
      }
    },
    done: () => {
      clock.requests.push({ start, end: performance.now() });
    },
  };
}

/**
 * Starts timing a wait of the event under way behind an earlier event of the same run (queue.ts);
 * the returned function ends it. Undefined outside `timeEvent`.
 */
export function runWaitStarted(): (() => void) | undefined {
  const clock = current.getStore();
  if (!clock) return undefined;
  const start = performance.now();
  return () => {
    clock.runWaits.push({ start, end: performance.now() });
  };
}

/**
 * Runs `work` as one event and tells `timed` how its time was spent, whether it succeeded or
 * threw (a failed event's time is spent all the same). Events under way side by side are kept
 * apart: each request is counted for the event whose work issued it.
 */
export async function timeEvent<T>(label: string, work: () => Promise<T>, timed: (time: EventTime) => void): Promise<T> {
  const clock: EventClock = { requests: [], wire: [], queue: [], runWaits: [] };
  const start = performance.now();
  try {
    return await current.run(clock, work);
  } finally {
    const wallMs = performance.now() - start;
    // A request still unanswered when the work ends (fired and forgotten) has no interval yet: not counted.
    const githubMs = unionMs(clock.requests);
    // A wait behind the run's earlier event is the App's own time only where none of the event's
    // requests was under way at once (those count as GitHub's already).
    const runWaitMs = unionMs([...clock.requests, ...clock.runWaits]) - githubMs;
    try {
      timed({ label, wallMs, githubMs, wireMs: unionMs(clock.wire), queueMs: unionMs(clock.queue), runWaitMs, appMs: wallMs - githubMs - runWaitMs, requests: clock.requests.length });
    } catch {
      // Measuring never fails the event it measures (a broken metric would otherwise fail every event).
    }
  }
}
