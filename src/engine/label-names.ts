// The names a label step asks for, as the host is given them, and how baton shows them. An
// agent usually wrote them: they are data, checked for shape here, shown only as code spans
// (no mention pings, no markup) with control characters made visible, and never go anywhere
// but GitHub's labels API as a JSON value.
import { codeSpan } from './code-span.ts';
import type { Json } from './types.ts';

/**
 * GitHub refuses more than 100 labels on one issue or pull request ("Validation Failed. Issues
 * cannot have more than 100 labels": actions/labeler issue #115; github/docs issue #161), so
 * a step never asks for more.
 */
export const MAX_LABELS = 100;

export type LabelRequest = { ok: true; names: string[]; leftOut: number } | { ok: false; error: string };

const kindOf = (v: Json): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/**
 * The distinct label names in `value` (a list of strings; null, a skipped step's output, is
 * none): trimmed, blanks dropped, repeats dropped without regard to case as GitHub compares
 * names (the first spelling kept), at most MAX_LABELS (`leftOut` counts the rest).
 */
export function labelRequest(value: Json): LabelRequest {
  if (value === null) return { ok: true, names: [], leftOut: 0 };
  if (!Array.isArray(value)) return { ok: false, error: `expected a list of label names, got ${kindOf(value)}` };
  const seen = new Set<string>();
  const names: string[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') return { ok: false, error: `expected a list of label names, but item ${i + 1} is ${kindOf(item)}` };
    const name = item.trim();
    if (name === '' || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return { ok: true, names: names.slice(0, MAX_LABELS), leftOut: Math.max(0, names.length - MAX_LABELS) };
}

/** Longest part of a name shown (GitHub's names have at most 50 characters; an agent's may be any length). */
const SHOWN_CHARS = 60;

/** One name as a code span it cannot close (./code-span.ts). */
export function labelSpan(name: string): string {
  return codeSpan(name, SHOWN_CHARS);
}

/** Names as code spans, `, `-separated, at most `max` of them and how many more. */
export function labelList(names: readonly string[], max = 10): string {
  const shown = names.slice(0, max).map(labelSpan).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
