// A name someone else chose (a label an agent asked for, a workflow's or a job's name in a CI
// failure) as it stands in baton's own text: one line, what a reader cannot see taken out
// (HTML comments — which could also spell a marker baton reads back — and invisible characters),
// control characters shown as `^X`, cut to a length, and inside a code span it cannot close
// (the fence is longer than any run of backticks in it). In a code span a mention pings nobody.
import { printable } from '../printable.ts';
import { sanitizeUntrusted } from './untrusted.ts';

/** The name on one line, cleaned and cut to `max` characters (with `…`); `empty` when nothing is left. */
export function oneLine(text: string, max: number, empty = ''): string {
  const chars = [...printable(sanitizeUntrusted(text)).replace(/\s+/g, ' ').trim()];
  if (chars.length === 0) return empty;
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : chars.join('');
}

/** The name as a code span it cannot close. */
export function codeSpan(text: string, max: number, empty = '(no name)'): string {
  const shown = oneLine(text, max, empty);
  const longest = Math.max(0, ...Array.from(shown.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = shown.startsWith('`') || shown.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}
