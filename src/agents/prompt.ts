// The prompt an agent actually receives: the step's rendered prompt, then what this
// attempt must know (continuing from a checkpoint, the last attempt's error, review or CI
// feedback), then the output contract. Feedback was written by people or by CI logs that
// quote code: it is fenced as data.
import type { DispatchWorker } from '../engine/commands.ts';
import type { Feedback, StopLimit } from '../engine/types.ts';
import { fenceUntrusted } from '../engine/untrusted.ts';

const STOPPED_BY: Record<StopLimit, string> = { turns: 'turn', time: 'time', cost: 'cost' };

/** Keeps what goes into a prompt from a log to a size an agent can read. */
const MAX_FEEDBACK_TEXT = 20_000;

function clip(text: string, max = MAX_FEEDBACK_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}\n${f}`;
}

export function feedbackSection(feedback: Feedback): string {
  const lines: string[] = [];
  const from = feedback.source === 'checks' ? 'Failing checks' : feedback.source === 'human-review' ? `A review${feedback.by ? ` by @${feedback.by}` : ''}` : 'The reviewer agent';
  lines.push('## Feedback to address', '', `${from} asked for changes. Fix what it points out; keep the rest of the work.`);
  if (feedback.summary) lines.push('', fenceUntrusted('feedback-summary', clip(feedback.summary)));
  if (feedback.comments.length) {
    lines.push('', 'Comments:');
    for (const c of feedback.comments) {
      const where = c.path ? `${c.path}${c.line ? `:${c.line}` : ''}` : 'general';
      lines.push('', `- ${where}`, fenceUntrusted('review-comment', clip(c.body, 4000)));
    }
  }
  const failing = feedback.checks.filter((c) => c.conclusion !== 'success');
  if (failing.length) {
    lines.push('', 'Checks:');
    for (const c of failing) {
      lines.push('', `- ${c.name}: ${c.conclusion ?? 'pending'}${c.url ? ` (${c.url})` : ''}`);
      if (c.summary) lines.push(fenceUntrusted('check-output', clip(c.summary)));
    }
  }
  return lines.join('\n');
}

export function contractSection(task: DispatchWorker, outputFile: string): string {
  const lines = ['## Your result', ''];
  if (!task.writes) lines.push('This step only reports a result: do not change, add or delete any files.', '');
  if (task.outputsSchema === null) {
    lines.push(
      `If you have a result to report, write it as JSON to the file named by the BATON_OUTPUT environment variable (${outputFile}),`,
      'or end your final message with a ```json block.',
    );
  } else {
    lines.push(
      `When you are done, write your result as JSON to the file named by the BATON_OUTPUT environment variable (${outputFile}).`,
      'If you cannot write that file, end your final message with a ```json block holding the result instead.',
      'The result must match this JSON Schema:',
      '',
      fence(JSON.stringify(task.outputsSchema, null, 2), 'json'),
    );
  }
  return lines.join('\n');
}

/** The first prompt of an attempt. */
export function buildPrompt(task: DispatchWorker, outputFile: string): string {
  const parts = [task.prompt ?? ''];
  if (task.resume) {
    const why = task.stoppedBy ? `was stopped by its ${STOPPED_BY[task.stoppedBy]} limit before it finished` : 'stopped before it finished (it timed out or crashed)';
    parts.push(
      [
        '## Continuing from a checkpoint',
        '',
        `An earlier attempt of this step ${why}. Its changes are`,
        'already in the working tree: look at them (e.g. `git status`, `git diff HEAD~1`), keep what is good, and',
        'continue from there rather than starting over.',
      ].join('\n'),
    );
  }
  if (task.previousError) {
    // The error quotes what the agent and its tools printed: data, never instructions.
    parts.push(['## The previous attempt failed', '', 'Avoid the same failure:', '', fenceUntrusted('previous-attempt-error', clip(task.previousError))].join('\n'));
  }
  if (task.feedback) parts.push(feedbackSection(task.feedback));
  parts.push(contractSection(task, outputFile));
  return parts.join('\n\n');
}

/** A follow-up prompt after a result that could not be read or did not match the schema. */
export function buildReprompt(task: DispatchWorker, outputFile: string, error: string, previousAnswer: string | null): string {
  const parts = [
    buildPrompt(task, outputFile),
    [
      '## Your previous answer was not accepted',
      '',
      'You already worked on this task: your changes are still in the working tree, so do not redo them.',
      'Only give the result again, fixed. The problem:',
      '',
      fence(clip(error)),
    ].join('\n'),
  ];
  if (previousAnswer !== null) parts.push(['What you answered:', '', fence(clip(previousAnswer, 8000), 'json')].join('\n'));
  return parts.join('\n\n');
}
