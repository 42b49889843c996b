// GitHub's size limits, in GitHub's units. A request over one is refused with 422, and a
// refused write in an event handler would fail that event and every later one: baton
// measures as GitHub does and keeps under the limit.
import { MAX_COMMENT_CHARS } from '../../record/render.ts';

/**
 * A check run's `output.summary` and `output.text`: 65,535 bytes of UTF-8 each, not
 * characters (github/docs#35252: "summary exceeds a maximum bytesize of 65535"), so CJK
 * text reaches it at a third of the characters and emoji at a quarter.
 */
export const MAX_CHECK_TEXT_BYTES = 65_535;

/** How GitHub measures a check run's text. */
export function checkTextBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const CUT_NOTE = `\n\n… (cut to GitHub's limit of ${MAX_CHECK_TEXT_BYTES} bytes for a check run's text)`;

/** `text` as it fits a check run's summary or text: whole, or cut at a character boundary with a note. */
export function fitCheckText(text: string): string {
  if (checkTextBytes(text) <= MAX_CHECK_TEXT_BYTES) return text;
  const budget = MAX_CHECK_TEXT_BYTES - checkTextBytes(CUT_NOTE);
  // The longest prefix within budget: at most `budget` UTF-16 units, each at least one byte.
  let lo = 0;
  let hi = Math.min(text.length, budget);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (checkTextBytes(text.slice(0, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return cut(text, lo) + CUT_NOTE;
}

/** The first `n` UTF-16 units of `text`, one fewer rather than half an emoji (a lone surrogate is not valid UTF-8). */
function cut(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, n > 0 && code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/**
 * A comment body within GitHub's 65,536 characters: `text` whole, or cut with a note, then
 * `tail` (a marker baton finds its comments by) always whole. Counted in UTF-16 units,
 * never fewer than GitHub's characters, so a body that fits here fits there.
 */
export function fitComment(text: string, tail = ''): string {
  if (text.length + tail.length <= MAX_COMMENT_CHARS) return text + tail;
  const note = `\n\n… (cut to GitHub's limit of ${MAX_COMMENT_CHARS} characters for a comment)`;
  return cut(text, MAX_COMMENT_CHARS - tail.length - note.length) + note + tail;
}
