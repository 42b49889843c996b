// Reading the App's GET /metrics in tests: Prometheus' text format as sample values.

/** Sample values by metric name and label set (`name{label="value"}`), from Prometheus' text format. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m) out.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return out;
}
