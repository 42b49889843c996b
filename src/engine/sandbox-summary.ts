// One line of what the sandbox did for an attempt, for the step's record (the status comment,
// the local record) and the worker's transcript:
//
//   sandbox: proxy, filter, own user, limits · refused: evil.example (3)
//   sandbox: advisory (proxy) — missing filter, own user, limits: nft not found
//
// Pure and bounded: the report came from the worker's artifact (result.ts checked its shape
// and made its strings printable); the record quotes the line through `inert` and `cell`.
import { PROTECTIONS, type Protection, type SandboxReport } from './sandbox.ts';

const SHORT: Record<Protection, string> = {
  'egress-proxy': 'proxy',
  'packet-filter': 'filter',
  'agent-user': 'own user',
  'resource-limits': 'limits',
};

/** Longest line kept in a step's record. */
export const MAX_SANDBOX_LINE = 300;
/** Hosts named per list; the rest are counted. */
const SHOWN = 3;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function sandboxSummary(r: SandboxReport): string {
  const enforced = PROTECTIONS.filter((p) => r.enforced.includes(p)).map((p) => SHORT[p]);
  // Without the packet filter an agent that ignores the proxy variables goes where it likes.
  const advisory = r.missing.some((m) => m.protection === 'packet-filter');
  let line = `sandbox: ${advisory ? `advisory (${enforced.join(', ') || 'nothing enforced'})` : enforced.join(', ') || 'nothing enforced'}`;
  if (r.missing.length) {
    // One reason said once for every protection it explains (a setup step that did not run).
    const byReason = new Map<string, string[]>();
    for (const m of r.missing) byReason.set(m.reason, [...(byReason.get(m.reason) ?? []), SHORT[m.protection]]);
    line += ` — ${[...byReason].map(([reason, names]) => `missing ${names.join(', ')}: ${clip(reason, 120)}`).join('; ')}`;
  }
  const list = (items: string[]): string => items.slice(0, SHOWN).join(', ') + (items.length > SHOWN ? ` and ${items.length - SHOWN} more` : '');
  if (r.limit) line += ` · ran into its ${r.limit} limit`;
  if (r.modelKey) line += r.modelKey.in === 'proxy' ? ' · key in the proxy' : ` · key in the agent (${clip(r.modelKey.why, 100)})`;
  if (r.refused.length) line += ` · refused: ${list(r.refused.map((x) => `${clip(x.host, 80)} (${x.count})`))}`;
  if (r.unreachable.length) line += ` · unreachable: ${list(r.unreachable.map((x) => `${clip(x.host, 80)} (${clip(x.error, 80)})`))}`;
  return clip(line, MAX_SANDBOX_LINE);
}
