// GitHub Actions' filter patterns (`branches`, `paths`), as the workflow syntax reference's
// "Filter pattern cheat sheet" defines them
// (https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#filter-pattern-cheat-sheet):
//   `*`  zero or more characters, but not `/`        `**` zero or more of any character
//   `?`  zero or one of the preceding character      `+`  one or more of the preceding character
//   `[]` one character listed or in a range (ranges only within a-z, A-Z, 0-9)
//   `!`  at the start, negates: patterns are checked in order, the last one that matches decides
//   `\`  escapes the next character (a literal `*`, `[`, …)
// A pattern matches the whole name (a path from the repository's root). Pure: no I/O.

export interface PatternError {
  /** Index of the pattern in its list (the first, for an error about the whole list). */
  index: number;
  message: string;
  /** The error is about the list, not one pattern. */
  list?: true;
}

interface Compiled {
  negated: boolean;
  regex: RegExp;
}

/** A character a pattern names literally (regex metacharacters escaped). */
const literal = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The regex of one pattern (without its `!`), or why it is not a pattern GitHub reads. */
function translate(body: string): RegExp | string {
  let out = '';
  // Whether the last thing written is one character `?` and `+` may apply to.
  let atom = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      if (i + 1 >= body.length) return 'ends with `\\`, which escapes nothing';
      out += literal(body[++i]!);
      atom = true;
    } else if (c === '*') {
      if (body[i + 1] === '*') {
        i++;
        // `**/` also matches no folder at all: `**/README.md` matches `README.md` (the cheat sheet's example).
        if (body[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += '[^/]*';
      atom = false;
    } else if (c === '?' || c === '+') {
      if (!atom) return `\`${c}\` at position ${i + 1} follows no character (it repeats the character before it; write \`\\${c}\` for a literal one)`;
      out += c;
      atom = false;
    } else if (c === '[') {
      const end = body.indexOf(']', i + 1);
      if (end === -1) return `\`[\` at position ${i + 1} is never closed by \`]\``;
      const set = body.slice(i + 1, end);
      if (set === '') return `\`[]\` at position ${i + 1} lists no character`;
      let cls = '';
      for (let j = 0; j < set.length; j++) {
        const from = set[j]!;
        if (set[j + 1] === '-' && j + 2 < set.length) {
          const to = set[j + 2]!;
          if (!sameRange(from, to)) return `the range \`${from}-${to}\` in \`[${set}]\` is not within a-z, A-Z or 0-9 (the only ranges GitHub allows)`;
          cls += `${from}-${to}`;
          j += 2;
        } else cls += literal(from);
      }
      out += `[${cls}]`;
      i = end;
      atom = true;
    } else {
      out += literal(c);
      atom = true;
    }
  }
  return new RegExp(`^${out}$`);
}

function sameRange(from: string, to: string): boolean {
  return ['az', 'AZ', '09'].some(([lo, hi]) => from >= lo! && from <= hi! && to >= lo! && to <= hi! && from <= to);
}

function compile(pattern: string): Compiled | string {
  const negated = pattern.startsWith('!');
  const body = negated ? pattern.slice(1) : pattern;
  if (body === '') return negated ? '`!` negates nothing' : 'the pattern is empty';
  const regex = translate(body);
  return typeof regex === 'string' ? regex : { negated, regex };
}

/**
 * What is wrong with a list of patterns, each error naming its pattern. A list of only `!`
 * patterns matches nothing (evaluation starts from "not included" and they only exclude):
 * GitHub says "If you define a branch with the `!` character, you must also define at least
 * one branch without the `!` character", and such a workflow never runs. baton refuses it
 * rather than keep a trigger that can never fire.
 */
export function filterPatternErrors(patterns: readonly string[]): PatternError[] {
  const errors: PatternError[] = [];
  patterns.forEach((p, index) => {
    const c = compile(p);
    if (typeof c === 'string') errors.push({ index, message: c });
  });
  if (patterns.length > 0 && patterns.every((p) => p.startsWith('!'))) {
    errors.push({ index: 0, list: true, message: 'every pattern starts with `!`: they only exclude, so nothing is ever included and the trigger never fires (add a pattern that includes, such as `**` before them)' });
  }
  return errors;
}

/**
 * Whether `name` is included by `patterns`, checked in order: the last pattern that matches
 * decides (a later `!` excludes, a later positive pattern includes again). An empty list
 * includes everything (no filter). Patterns that do not compile never match (the manifest
 * check refuses them before a workflow gets here).
 */
export function matchesFilters(patterns: readonly string[], name: string): boolean {
  if (patterns.length === 0) return true;
  let included = false;
  for (const p of patterns) {
    const c = compile(p);
    if (typeof c !== 'string' && c.regex.test(name)) included = !c.negated;
  }
  return included;
}

/** Whether any of `paths` (changed files) is included: GitHub runs a `paths` workflow when one is. */
export function anyPathMatches(patterns: readonly string[], paths: readonly string[]): boolean {
  return patterns.length === 0 || paths.some((p) => matchesFilters(patterns, p));
}
