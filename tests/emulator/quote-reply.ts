// What GitHub's "Quote reply" (a comment's … menu) puts in the comment box: the comment's
// rendered text turned back into Markdown (github/quote-selection), each line under `> `,
// then an empty line for the reply. HTML comments are not rendered, so baton's markers are
// not quoted. Tests answer baton's questions through this, as people do.

/** A comment body that quote-replies `quoted` with `reply` under the quote. */
export function quoteReply(quoted: string, reply: string): string {
  const shown = quoted.replace(/<!--[\s\S]*?-->/g, '').trim();
  const quote = shown.split(/\r?\n/).map((l) => (l.trim() ? `> ${l}` : '>')).join('\n');
  return `${quote}\n\n${reply}`;
}
