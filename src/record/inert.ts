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

/** A marker baton appends to its own comments: a kind and one key without spaces or angle brackets. */
const MARKER_TEXT = /^baton:[a-z]+ [^\s<>]+$/;

/** `<!-- baton:… -->` for a marker made of baton's own words and ids; throws on anything else. */
export function markerComment(marker: string): string {
  if (!MARKER_TEXT.test(marker)) throw new Error(`refusing to write a marker made of free text: ${JSON.stringify(marker.slice(0, 80))}`);
  return `<!-- ${marker} -->`;
}
