// Text that baton did not write itself (an issue, a comment, an agent's output or error, a
// question) can end up in baton's own comments: a reply quoting a command, a failure reason in
// the status comment, a pull request body. Comments written by baton's bot are where baton
// reads its state and markers from, so such text must never be able to spell one. HTML comments
// are the only carrier (state blocks and markers are `<!-- baton:… -->`), and they are also
// how text hides from a person reading the thread: both ends are escaped so that GitHub shows
// them literally (`&lt;!--` renders as `<!--`) and no reader can take them for markup.
export function inert(text: string): string {
  return text.replaceAll('<!--', '&lt;!--').replaceAll('-->', '--&gt;');
}

/**
 * An agent's text posted where it notifies people (a review and its inline comments): its
 * `@login` and `@org/team` mentions are kept readable but made inert, with a zero-width space
 * after the `@`, so that a prompt-injected reviewer (a fork's code can carry the injection)
 * cannot page a team or spam people from baton's bot. GitHub links a mention only where `@` is
 * directly followed by the name. Code blocks are left alone: GitHub does not notify from them,
 * and a suggested change must stay exactly what the agent proposed.
 */
export function quietMentions(text: string): string {
  return text
    .split(/(^[ \t]*(?:`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*(?:`{3,}|~{3,})[ \t]*(?:\n|$)|$))/m)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, '$1@\u200B')))
    .join('');
}

/** A marker baton appends to its own comments: a kind and one key without spaces or angle brackets. */
const MARKER_TEXT = /^baton:[a-z]+ [^\s<>]+$/;

/** `<!-- baton:… -->` for a marker made of baton's own words and ids; throws on anything else. */
export function markerComment(marker: string): string {
  if (!MARKER_TEXT.test(marker)) throw new Error(`refusing to write a marker made of free text: ${JSON.stringify(marker.slice(0, 80))}`);
  return `<!-- ${marker} -->`;
}
