// A local run has no issue: its issue context carries number 0, so workflows written for
// GitHub (`Fix #${{ issue.number }}: …`, `Fixes #${{ issue.number }}.`) would put `#0` in
// the pull request, and GitHub would link it to nothing (issue numbers start at 1). The
// local pull-request text drops those references instead.

/** A line that only closes the issue (GitHub's closing keywords), e.g. `Fixes #0.` */
const CLOSING_LINE = /^[ \t]*(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)[ \t]+#0\b[.!]?[ \t]*(?:\r?\n|$)/gim;
/** `#0` elsewhere, with the space or parentheses around it: `issue #0.` → `issue.` */
const REFERENCE = /[ \t]*\(#0\)|[ \t]?#0\b/g;

export function withoutIssueZero(text: string): string {
  return text.replace(CLOSING_LINE, '').replace(REFERENCE, '').replace(/^\s*\n/, '');
}
