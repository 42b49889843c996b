// Text baton must keep in a run's status comment — the (or PR's) title and body, a
// person's answers — shares GitHub's 65,536 characters per comment with everything else the
// run records. Text at GitHub's own limit cannot fit: it is refused up front, with a message
// saying which limit and what to do, instead of failing the delivery (and every later one)
// when the record is written, or dropping the text without a word.
import { MAX_COMMENT_CHARS } from '../record/render.ts';

/** Most characters of an issue's or PR's title and body together, as the state keeps them (JSON). */
export const MAX_THREAD_TEXT_CHARS = 20_000;
/** Most characters of the answers one comment gives, as the state keeps them (JSON). */
export const MAX_ANSWER_CHARS = 8_000;

/** Length as the state block holds it: JSON-escaped (a newline costs two). */
export function keptLength(...texts: string[]): number {
  return texts.reduce((n, t) => n + JSON.stringify(t).length - 2, 0);
}

const n = (x: number): string => x.toLocaleString('en-US');

const why = `baton keeps it in the run's status comment, and GitHub allows ${n(MAX_COMMENT_CHARS)} characters for a comment, the run's own record included`;

export function threadTooLong(actor: string, isPull: boolean, length: number): string {
  const what = isPull ? "the pull request's title and body are" : "the issue's title and body are";
  return (
    `@${actor}, ${what} too long for baton to keep (${n(length)} characters; at most ${n(MAX_THREAD_TEXT_CHARS)}): ${why}. ` +
    `Nothing was started. Shorten the description (put long logs in a file or a gist and link to it), then ask again.`
  );
}

export function answerTooLong(actor: string, length: number): string {
  return (
    `@${actor}, your answer is too long for baton to keep (${n(length)} characters; at most ${n(MAX_ANSWER_CHARS)}): ${why}. ` +
    `The run is still waiting: reply with a shorter answer (link to a file or a gist for long text).`
  );
}
