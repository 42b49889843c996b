// Small text helpers of the status comment.

/** 3m 12s, 2h 10m, 45s; '' for an unknown span. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

/** Text safe inside a markdown table cell: one line, no pipes, bounded. */
export function cell(text: string, max = 120): string {
  const one = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}
