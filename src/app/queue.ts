// One writer per run (docs/architecture.md §2): work for one key runs strictly one after another,
// work for different keys runs side by side. Chains are dropped once they drain.
import { runWaitStarted } from './event-time.ts';

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const earlier = this.tails.get(key);
    // Time spent behind the run's earlier event is no work of this event's: timed apart
    // (event-time.ts), so that the App's own time per event does not hold it.
    const waited = earlier ? runWaitStarted() : undefined;
    const go = () => {
      waited?.();
      return work();
    };
    const next = (earlier ?? Promise.resolve()).then(go, go);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves when nothing is queued (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while (this.tails.size) await Promise.all([...this.tails.values()]);
  }
}
