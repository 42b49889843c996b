// The sandbox report of a worker result (WorkerResult.sandbox), read back from the artifact:
// the worker wrote it next to an agent, so its shape is checked, its lists and strings are
// bounded, and every string is made printable (src/printable.ts) before it can reach the
// step's record, a terminal or a comment.
import { PROTECTIONS, type Protection, type SandboxReport } from '../engine/sandbox.ts';
import { printable } from '../printable.ts';

/** Entries kept per list, and characters per string. */
export const REPORT_CAPS = { entries: 100, host: 260, reason: 300 } as const;
const LIMITS = ['cpu', 'memory', 'processes', 'cost'] as const;

const text = (v: unknown, max: number): string | null => {
  if (typeof v !== 'string') return null;
  const s = printable(v).replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** The checked, bounded report; `fail` throws with what is wrong. */
export function parseSandboxReport(v: unknown, fail: (why: string) => never): SandboxReport {
  if (!v || typeof v !== 'object' || Array.isArray(v)) fail('`sandbox` must be an object');
  const o = v as Record<string, unknown>;
  const listOf = (key: string): unknown[] => {
    if (!Array.isArray(o[key])) fail(`\`sandbox.${key}\` must be a list`);
    return (o[key] as unknown[]).slice(0, REPORT_CAPS.entries);
  };
  const protection = (p: unknown, key: string): Protection => (PROTECTIONS.includes(p as Protection) ? (p as Protection) : fail(`\`sandbox.${key}\` names an unknown protection ${JSON.stringify(String(p)).slice(0, 60)}`));
  const enforced = [...new Set(listOf('enforced').map((p) => protection(p, 'enforced')))];
  const missing = listOf('missing').map((m) => {
    const e = (m ?? {}) as Record<string, unknown>;
    const reason = text(e.reason, REPORT_CAPS.reason);
    if (reason === null) fail('every `sandbox.missing` entry needs a `reason`');
    return { protection: protection(e.protection, 'missing'), reason: reason! };
  });
  const refused = listOf('refused').map((r) => {
    const e = (r ?? {}) as Record<string, unknown>;
    const host = text(e.host, REPORT_CAPS.host);
    if (host === null || !Number.isInteger(e.count) || (e.count as number) < 0) fail('every `sandbox.refused` entry needs a `host` and a whole `count`');
    return { host: host!, count: e.count as number };
  });
  const unreachable = listOf('unreachable').map((u) => {
    const e = (u ?? {}) as Record<string, unknown>;
    const host = text(e.host, REPORT_CAPS.host);
    const error = text(e.error, REPORT_CAPS.reason);
    if (host === null || error === null) fail('every `sandbox.unreachable` entry needs a `host` and an `error`');
    return { host: host!, error: error! };
  });
  const limit = o.limit === null || o.limit === undefined ? null : LIMITS.includes(o.limit as (typeof LIMITS)[number]) ? (o.limit as SandboxReport['limit']) : fail(`\`sandbox.limit\` must be one of ${LIMITS.join(', ')} or null`);
  const key = o.modelKey as Record<string, unknown> | undefined | null;
  let modelKey: SandboxReport['modelKey'];
  if (key !== undefined && key !== null) {
    if (key.in === 'proxy') modelKey = { in: 'proxy' };
    else if (key.in === 'agent' && text(key.why, REPORT_CAPS.reason) !== null) modelKey = { in: 'agent', why: text(key.why, REPORT_CAPS.reason)! };
    else fail("`sandbox.modelKey` must be { in: 'proxy' } or { in: 'agent', why }");
  }
  return { enforced, missing, refused, unreachable, limit, ...(modelKey && { modelKey }) };
}
