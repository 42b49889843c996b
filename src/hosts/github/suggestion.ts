// A reviewer's suggested change, as GitHub shows it: a ```suggestion block in an inline
// review comment, which the PR's author can apply with one click. The text is an agent's
// output: it must stay data. Its fence is longer than any run of backticks in it, so no line
// of it can close the block early and spill markdown (mentions, links, markup) into the
// comment; inside a code block GitHub renders nothing and notifies no one. Text that cannot
// be shown exactly as applied is not offered as a suggestion at all.
import { sanitizeUntrusted } from '../../engine/untrusted.ts';

export type Suggestion = { block: string } | { withheld: string };

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export function suggestionBlock(text: string): Suggestion {
  // One trailing newline is how files end, not an extra empty line to insert.
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  // An HTML comment is how baton's markers and hidden text are written: in a code block it
  // would be shown escaped (inert), which is not what applying it would write. Invisible and
  // direction-changing characters make code read differently from what it does.
  if (/<!--|-->/.test(lines)) return { withheld: 'it contains an HTML comment' };
  if (sanitizeUntrusted(lines) !== lines) return { withheld: 'it contains invisible or hidden characters' };
  const fence = fenceFor(lines);
  return { block: `${fence}suggestion\n${lines}\n${fence}` };
}
