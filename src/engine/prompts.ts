// Prompts baton writes itself: the reviewer's task and a fix round's task. The step's
// own prompts come from the manifest; these wrap them with what the worker must know.
import type { Draft } from './draft.ts';
import type { Feedback } from './types.ts';

export function reviewPrompt(d: Draft, extra: string): string {
  const s = d.state;
  return [
    extra.trim(),
    s.fork
      ? `Review the changes of pull request #${s.thread?.number ?? '?'} (baton run \`${s.runId}\`, workflow \`${s.workflow}\`): the diff between \`${s.baseBranch}\` and its head ${s.head}, the commit checked out.`
      : `Review the changes of baton run \`${s.runId}\` (workflow \`${s.workflow}\`): the diff between \`${s.baseBranch}\` and \`${s.runBranch}\` at ${s.head}.`,
    'Answer with JSON: {"approved": boolean, "summary": string, "comments": [{"path": string, "line": number, "body": string}]}.',
    'A comment may suggest the exact replacement for the lines it is on: add "suggestion" (the new text of those lines, indented as in the file) and, for several lines, "start_line" (the first of them; "line" is the last). Line numbers are those of the new version of the file, on lines the diff shows.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function describeFeedback(feedback: Feedback): string {
  const lines: string[] = [];
  const who = feedback.by ? ` by @${feedback.by}` : '';
  const source = feedback.source === 'checks' ? 'Failing checks' : feedback.source === 'human-review' ? `Review${who}` : `Automated review${who}`;
  lines.push(`${source}:`, feedback.summary.trim());
  for (const c of feedback.comments) {
    const where = c.path ? `${c.path}${c.line ? `:${c.line}` : ''}: ` : '';
    lines.push(`- ${where}${c.body}`);
  }
  for (const c of feedback.checks) {
    lines.push(`### ${c.name} (${c.conclusion ?? 'pending'})`);
    if (c.summary) lines.push(c.summary);
  }
  return lines.filter((l) => l !== '').join('\n');
}

export function fixPrompt(d: Draft, gate: string, target: string, task: string | null, feedback: Feedback | null): string {
  return [
    `Fix round for step \`${gate}\` of baton run \`${d.state.runId}\`: the changes made by step \`${target}\` need more work.`,
    task ? `The original task was:\n${task.trim()}` : '',
    feedback ? describeFeedback(feedback) : '',
    'Change the code so that the feedback above is addressed; keep the rest of the work as it is.',
  ]
    .filter(Boolean)
    .join('\n\n');
}
