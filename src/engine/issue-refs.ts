// A run without an issue — a local run (its stand-in issue has number 0), a run started on a
// pull request — has no issue number, so a workflow written for issues would say `#0` or a
// bare `#` wherever it writes `#${{ issue.number }}`: in the questions it asks, the prompts,
// the pull request's title and body (GitHub links `#0` to nothing; issue numbers start at 1).
// Such references are rewritten in the template, which is the workflow author's trusted text,
// before it is rendered: the values put into it (issue text, agent output) are never touched.
import type { Json } from './types.ts';

const NUMBER = String.raw`#\$\{\{\s*issue\.number\s*\}\}`;

/** A line that only closes the issue (GitHub's closing keywords), e.g. `Fixes #${{ issue.number }}.` */
const CLOSING_LINE = new RegExp(String.raw`^[ \t]*(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)[ \t]+${NUMBER}[.!]?[ \t]*(?:\r?\n|$)`, 'gim');
/** `(#N)` with the space before it: `the fix (#N).` → `the fix.` */
const IN_PARENTHESES = new RegExp(String.raw`[ \t]*\(${NUMBER}\)`, 'gi');
/** `issue #N`, `the issue #N` → `the issue` (`Issue #N` → `The issue`). */
const NAMED = new RegExp(String.raw`\b(?:the\s+)?issue\s+${NUMBER}`, 'gi');
/** `#N:` opening a line (a title `#N: …`): dropped with its colon. */
const LEADING = new RegExp(String.raw`^([ \t]*)${NUMBER}:[ \t]*`, 'gim');
/** Any other `#N`, with the space before it: `Fix #N: …` → `Fix: …`. */
const ANY = new RegExp(String.raw`[ \t]?${NUMBER}`, 'gi');

/** Whether a run's issue context has a number GitHub could link (issue numbers start at 1). */
export function hasIssueNumber(issue: Json): boolean {
  if (issue === null || typeof issue !== 'object' || Array.isArray(issue)) return false;
  const n = issue.number;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1;
}

/** The template with its `#${{ issue.number }}` references rewritten for a run that has no issue. */
export function withoutIssueReferences(template: string): string {
  if (!/issue\.number/i.test(template)) return template;
  return template
    .replace(CLOSING_LINE, '')
    .replace(IN_PARENTHESES, '')
    .replace(NAMED, (m) => (m[0] === 'I' || m[0] === 'T' ? 'The issue' : 'the issue'))
    .replace(LEADING, '$1')
    .replace(ANY, '');
}
