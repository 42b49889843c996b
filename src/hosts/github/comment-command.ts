// `/baton …` comment commands. Anchored: only a line that starts with `/baton` counts,
// never one inside a fenced code block or a `>` quote (quoting someone's command must not
// run it again). Knows the grammar only; which workflows exist is the caller's business.
import { BUILTIN_COMMANDS } from '../../manifest/semantic.ts';
import { parseRunId } from './run-id.ts';
import { parseRaiseFlags } from '../../engine/raise-flags.ts';
import type { LimitRaise } from '../../engine/types.ts';

export const BUILTINS = BUILTIN_COMMANDS;

export type CommentCommand =
  | { kind: 'start'; workflow: string; inputs: Record<string, string> }
  | { kind: 'plan'; workflow: string; inputs: Record<string, string> }
  | { kind: 'status' }
  | { kind: 'retry'; step: string; raise?: LimitRaise }
  | { kind: 'cancel' }
  | { kind: 'approve' }
  | { kind: 'help' }
  /** `/baton answer [run-id]` and the answers after it (answer.ts decides what they answer). */
  | { kind: 'answer'; runId: string | undefined; text: string }
  | { kind: 'invalid'; message: string };

export const USAGE = [
  '`/baton <workflow> [key=value …]` start a workflow',
  '`/baton plan <workflow> [key=value …]` show what would run, start nothing',
  '`/baton status` show the run of this thread, and the day of workflows with `budget.per-day`',
  '`/baton retry <step> [--budget +$N] [--minutes +N] [--turns +N]` run a failed step again; a step a limit stopped continues from its kept work, with that limit raised',
  '`/baton cancel` stop the run',
  '`/baton approve` pass an `approve` step',
  '`/baton answer …` answer the open questions (number the answers like the questions: `1. …`, `2. …`)',
  '`/baton help` this list',
].join('\n');

/**
 * When a comment was posted and last written (ms, GitHub's `created_at`/`updated_at`). GitHub
 * lets anyone with write access edit anyone's comment, and keeps the author: a comment's body
 * today may be another person's words under the author's name. So only a comment never written
 * again is its author's: an edited one is never a command, an answer or an approval.
 */
export interface Posted {
  createdAt: number;
  updatedAt: number;
}

/**
 * Whether the comment was written again after it was posted. GitHub stamps `updated_at` on an
 * edit and gives both to the second, the same at creation (the `created` delivery, and every
 * redelivery of it, carry those of the moment it was posted). Unknown or unreadable times count
 * as edited: a comment is its author's only when GitHub says so.
 */
export function editedSincePosted(c: Posted): boolean {
  return !(Number.isFinite(c.createdAt) && c.updatedAt === c.createdAt);
}

/** The command of a comment, or undefined when the comment holds none. */
export function parseCommentCommand(body: string): CommentCommand | undefined {
  const found = commandLine(body);
  if (found === undefined) return undefined;
  const { line, after } = found;
  // Answers are free text (an apostrophe is no unclosed quote): they are not split into words.
  const answer = /^answer(?:\s+|$)([\s\S]*)$/.exec(line);
  if (answer) return answerCommand(answer[1]!, after);
  let words: string[];
  try {
    words = splitWords(line);
  } catch (err) {
    return { kind: 'invalid', message: (err as Error).message };
  }
  const [verb, ...rest] = words;
  if (verb === undefined || verb === 'help') return rest.length ? extra('help', rest) : { kind: 'help' };
  switch (verb) {
    case 'status':
    case 'cancel':
    case 'approve':
      return rest.length ? extra(verb, rest) : { kind: verb };
    case 'retry': {
      const [step, ...flags] = rest;
      if (step === undefined || step.includes('=') || step.startsWith('-')) return { kind: 'invalid', message: '`/baton retry` takes the id of one step, like `/baton retry implement` or `/baton retry implement --budget +$2`' };
      const raise = parseRaiseFlags(flags);
      if ('error' in raise) return { kind: 'invalid', message: `\`/baton retry\`: ${raise.error}` };
      return Object.keys(raise).length ? { kind: 'retry', step, raise } : { kind: 'retry', step };
    }
    case 'plan': {
      const [workflow, ...args] = rest;
      if (workflow === undefined || workflow.includes('=')) return { kind: 'invalid', message: '`/baton plan` takes a workflow, like `/baton plan fix-issue`' };
      const inputs = parseInputs(args);
      return typeof inputs === 'string' ? { kind: 'invalid', message: inputs } : { kind: 'plan', workflow, inputs };
    }
    default: {
      if (verb.includes('=')) return { kind: 'invalid', message: `\`/baton\` needs a workflow before its inputs, like \`/baton fix-issue ${verb}\`` };
      const inputs = parseInputs(rest);
      return typeof inputs === 'string' ? { kind: 'invalid', message: inputs } : { kind: 'start', workflow: verb, inputs };
    }
  }
}

function extra(verb: string, rest: string[]): CommentCommand {
  return { kind: 'invalid', message: `\`/baton ${verb}\` takes no arguments (got ${rest.map((w) => '`' + w + '`').join(' ')})` };
}

/**
 * `/baton answer [run-id] …`: a first word that is a run id names the run (a thread may hold
 * several); the answers are the rest of that line and every line after it.
 */
function answerCommand(rest: string, after: string[]): CommentCommand {
  const first = /^(\S+)(?:\s+|$)/.exec(rest);
  const runId = first && parseRunId(first[1]!) ? first[1]! : undefined;
  const text = [runId ? rest.slice(first![0].length) : rest, ...after].join('\n').trim();
  return { kind: 'answer', runId, text };
}

/** The first command line (without `/baton`) and the lines after it. */
function commandLine(body: string): { line: string; after: string[] } | undefined {
  let fence: string | undefined;
  const lines = body.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!;
      else if (line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const m = /^\/baton(?:\s+(.*))?$/.exec(line);
    if (m) return { line: m[1] ?? '', after: lines.slice(i + 1) };
  }
  return undefined;
}

/** Words separated by spaces; "double" or 'single' quotes keep spaces, also after `key=`. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let inWord = false;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`a ${quote === '"' ? 'double' : 'single'} quote is never closed`);
  if (inWord) words.push(cur);
  return words;
}

function parseInputs(words: string[]): Record<string, string> | string {
  const inputs: Record<string, string> = {};
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq <= 0) return `expected \`key=value\`, got \`${w}\`; quote values with spaces: \`key="two words"\``;
    const key = w.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `\`${key}\` is not an input name`;
    if (key in inputs) return `input \`${key}\` is given twice`;
    inputs[key] = w.slice(eq + 1);
  }
  return inputs;
}
