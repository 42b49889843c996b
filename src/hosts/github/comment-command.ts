// `/baton …` comment commands. Anchored: only a line that starts with `/baton` counts,
// never one inside a fenced code block or a `>` quote (quoting someone's command must not
// run it again). Knows the grammar only; which workflows exist is the caller's business.

export const BUILTINS = ['status', 'retry', 'cancel', 'approve', 'help', 'plan'] as const;

export type CommentCommand =
  | { kind: 'start'; workflow: string; inputs: Record<string, string> }
  | { kind: 'plan'; workflow: string; inputs: Record<string, string> }
  | { kind: 'status' }
  | { kind: 'retry'; step: string }
  | { kind: 'cancel' }
  | { kind: 'approve' }
  | { kind: 'help' }
  | { kind: 'invalid'; message: string };

export const USAGE = [
  '`/baton <workflow> [key=value …]` start a workflow',
  '`/baton plan <workflow> [key=value …]` show what would run, start nothing',
  '`/baton status` show the run of this thread',
  '`/baton retry <step>` run a failed step again',
  '`/baton cancel` stop the run',
  '`/baton approve` pass an `approve` step',
  '`/baton help` this list',
].join('\n');

/** The command of a comment, or undefined when the comment holds none. */
export function parseCommentCommand(body: string): CommentCommand | undefined {
  const line = commandLine(body);
  if (line === undefined) return undefined;
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
    case 'retry':
      if (rest.length !== 1 || rest[0]!.includes('=')) return { kind: 'invalid', message: '`/baton retry` takes the id of one step, like `/baton retry implement`' };
      return { kind: 'retry', step: rest[0]! };
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

function commandLine(body: string): string | undefined {
  let fence: string | undefined;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!;
      else if (line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const m = /^\/baton(?:\s+(.*))?$/.exec(line);
    if (m) return m[1] ?? '';
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
