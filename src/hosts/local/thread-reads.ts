// Workflows written for GitHub read the issue or pull request their run lives on (`issue.body`,
// `pr.title`). A local run has neither unless `issue=…` or `pr=<branch>` stands in, and an
// absent context renders as empty text: the agent would get a prompt with holes and no word
// why. So the run says, at its start, which of those fields the workflow reads and how to
// give them. Numbers and links are left out: without an issue, `#${{ issue.number }}` is
// taken out of the text by the engine (engine/issue-refs.ts).
import { findSegments, parseExpression, references } from '../../manifest/expressions.ts';
import type { Workflow } from '../../manifest/types.ts';

const QUIET_FIELDS = new Set(['number', 'url', 'html_url']);

/** Every `issue.*` and `pr.*` field the workflow's steps read (lower case, sorted), by context. */
export function threadReads(workflow: Workflow): { issue: string[]; pr: string[] } {
  const found = { issue: new Set<string>(), pr: new Set<string>() };
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!v.includes('${{')) return;
      let segments;
      try {
        segments = findSegments(v);
      } catch {
        return; // the validator has already reported it
      }
      for (const seg of segments) {
        let expr;
        try {
          expr = parseExpression(seg.source);
        } catch {
          continue;
        }
        for (const ref of references(expr)) {
          const [root, field] = ref.path.map((p) => p.toLowerCase());
          if (root !== 'issue' && root !== 'pr') continue;
          if (field !== undefined && QUIET_FIELDS.has(field)) continue;
          found[root].add(field === undefined ? root : `${root}.${field}`);
        }
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(workflow.steps);
  return { issue: [...found.issue].sort(), pr: [...found.pr].sort() };
}

/** What the run will read as empty, and how to give it; nothing when the stand-ins cover it. */
export function missingThreadNotes(workflow: Workflow, given: { issue: boolean; pr: boolean }): string[] {
  const reads = threadReads(workflow);
  const notes: string[] = [];
  if (reads.issue.length && !given.issue && !('issue' in workflow.inputs)) {
    notes.push(`\`${workflow.name}\` reads ${reads.issue.join(', ')}; a local run has no issue, so they are empty. Give the text with --input issue="<text>" (its first line the title, the next lines the body).`);
  }
  if (reads.pr.length && !given.pr && !('pr' in workflow.inputs)) {
    notes.push(`\`${workflow.name}\` reads ${reads.pr.join(', ')}; this run is bound to no pull request, so they are empty. Name a local branch with --input pr=<branch>.`);
  }
  return notes;
}
