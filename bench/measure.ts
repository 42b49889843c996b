// Timing helpers: warm up first (JIT, caches), then take the median of several runs so
// that one GC pause or a noisy neighbour does not decide the figure.
import { performance } from 'node:perf_hooks';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median wall time of `fn` in milliseconds, after `warmup` untimed calls. */
export function medianMs(fn: () => void, o: { warmup?: number; runs?: number } = {}): number {
  for (let i = 0; i < (o.warmup ?? 5); i++) fn();
  const times: number[] = [];
  for (let i = 0; i < (o.runs ?? 15); i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return median(times);
}
