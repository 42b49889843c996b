// `@mentions` in text baton's bot posts that baton did not write (pure: used by the engine for
// the text it renders for people, and by the GitHub host for reviews).

/**
 * Text baton did not write, posted where it notifies people (a review and its inline comments, a
 * question, a pull request's title and body): its `@login` and `@org/team` mentions are kept
 * readable but made inert, with a zero-width space after the `@`, so that a prompt-injected agent
 * (a fork's code, an issue's text can carry the injection) cannot page a team or spam people
 * from baton's bot. GitHub links a mention only where `@` is
 * directly followed by the name. Code blocks are left alone: GitHub does not notify from them,
 * and a suggested change must stay exactly what the agent proposed.
 */
export function quietMentions(text: string): string {
  return text
    .split(/(^[ \t]*(?:`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*(?:`{3,}|~{3,})[ \t]*(?:\n|$)|$))/m)
    .map((part, i) => (i % 2 === 1 ? part : outsideCodeSpans(part)))
    .join('');
}

/** Inline code spans (a run of backticks closed by a run of the same length) notify nobody either: left as they are. */
function outsideCodeSpans(text: string): string {
  return text
    .split(/((`+)[\s\S]*?[^`]\2(?!`))/)
    .map((part, i) => (i % 3 === 0 ? part.replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, '$1@\u200B') : i % 3 === 1 ? part : ''))
    .join('');
}
