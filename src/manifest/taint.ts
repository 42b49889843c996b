// Where the value of an expression comes from, by what it reads. Shared by the validator
// (no agent- or issue-written text may be interpolated into a `run:` command) and the
// engine (such text in a prompt is fenced and labelled), so both judge the same way.
import { references, type Reference } from './expressions.ts';
import type { Expr } from '@actions/expressions';
import type { Step } from './types.ts';

/** Fields of an issue or PR that no one can write free text into. */
const SAFE_THREAD_FIELDS = new Set(['number', 'url', 'html_url']);

/**
 * Step kinds whose outputs a person with the role gave: not an agent's. Only their logins
 * (`answeredBy`, `approvedBy`) are trusted; an answer is free text a maintainer may have
 * pasted from anyone (a reporter's error output holding `$(…)`), so it is read like issue text.
 */
const PEOPLE_STEPS = new Set<string>(['ask', 'approve']);
const PEOPLE_TEXT: Record<string, string> = { ask: 'answers' };

export type Taint = 'trusted' | 'agent' | 'untrusted';

export interface Tainted {
  taint: Taint;
  /** What the expression reads that makes it so, lower case (`issue.body`, `steps.plan`, `item`). */
  label: string;
  /** The whole reference, as written (`steps.plan.outputs.tasks`). */
  ref: string;
  /** Whose words the value can carry, as a clause for messages (`an agent writes that text`). */
  writer: string;
}

const THREAD_WRITER = 'anyone who can write on the issue or pull request writes that text';
const ANSWER_WRITER = "an answer may quote anyone (a reporter's error output pasted into it), so anyone writes that text";
const AGENT_WRITER = 'an agent writes that text';

/**
 * Names compare without case, as the evaluator's do: issue and PR text is anyone's
 * (`issue.body`, `issue.Title`, `toJSON(issue)`, `pr.head.label`…; only the number and URL
 * are not); so are the answers of `ask` steps (and any read that may include them: the step,
 * its outputs or all steps as a whole, or by a computed name); the outputs of agent and run
 * steps, and `item`, are an agent's; inputs (given by a person with the role), who answered
 * or approved, a step's status, `repo`, `run` and `index` are trusted.
 */
export function taintOf(steps: readonly Pick<Step, 'id' | 'kind'>[], expr: Expr): Tainted {
  let found: Tainted = { taint: 'trusted', label: '', ref: '', writer: '' };
  for (const r of references(expr)) {
    const t = taintOfReference(steps, r);
    if (t.taint === 'untrusted') return t;
    if (t.taint === 'agent' && found.taint === 'trusted') found = t;
  }
  return found;
}

function taintOfReference(steps: readonly Pick<Step, 'id' | 'kind'>[], ref: Reference): Tainted {
  const [root, field, part] = ref.path.map((p) => p.toLowerCase());
  const whole = ref.path.join('.');
  if ((root === 'issue' || root === 'pr') && !(field !== undefined && ref.path.length === 2 && SAFE_THREAD_FIELDS.has(field))) {
    return { taint: 'untrusted', label: whole.toLowerCase(), ref: whole, writer: THREAD_WRITER };
  }
  if (root === 'item') return { taint: 'agent', label: 'item', ref: whole, writer: AGENT_WRITER };
  if (root === 'steps') {
    const answers = answersRead(steps, ref);
    if (answers) return { taint: 'untrusted', label: answers, ref: whole, writer: ANSWER_WRITER };
    const kind = field === undefined ? undefined : steps.find((s) => s.id.toLowerCase() === field)?.kind;
    if ((part === undefined || part === 'outputs') && !PEOPLE_STEPS.has(kind ?? '')) {
      return { taint: 'agent', label: ref.path.slice(0, 2).join('.'), ref: whole, writer: AGENT_WRITER };
    }
  }
  return { taint: 'trusted', label: '', ref: whole, writer: '' };
}

/**
 * The answers a `steps…` reference may read, as a label (`steps.clarify.outputs.answers`), or
 * undefined: a step's people-written text field itself, or anything that holds it (the step or
 * its outputs as a whole, a computed key, all steps when any step asks).
 */
function answersRead(steps: readonly Pick<Step, 'id' | 'kind'>[], ref: Reference): string | undefined {
  const [, field, part, key] = ref.path.map((p) => p.toLowerCase());
  if (field === undefined) {
    const asking = steps.find((s) => PEOPLE_TEXT[s.kind] !== undefined);
    return asking ? `steps.${asking.id}.outputs.${PEOPLE_TEXT[asking.kind]}` : undefined;
  }
  const step = steps.find((s) => s.id.toLowerCase() === field);
  const text = step ? PEOPLE_TEXT[step.kind] : undefined;
  if (!step || text === undefined) return undefined;
  if (part !== undefined && part !== 'outputs') return undefined;
  if (key !== undefined && key !== text.toLowerCase()) return undefined;
  return `steps.${step.id}.outputs.${text}`;
}
