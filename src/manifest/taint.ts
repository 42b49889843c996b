// Where the value of an expression comes from, by what it reads. Shared by the validator
// (no agent- or issue-written text may be interpolated into a `run:` command) and the
// engine (such text in a prompt is fenced and labelled), so both judge the same way.
import { references, type Reference } from './expressions.ts';
import type { Expr } from '@actions/expressions';
import type { Step } from './types.ts';

/** Fields of an issue or PR that no one can write free text into. */
const SAFE_THREAD_FIELDS = new Set(['number', 'url', 'html_url']);

/** Step kinds whose outputs people with the role gave (answers, approvals): not an agent's. */
const PEOPLE_STEPS = new Set<string>(['ask', 'approve']);

export type Taint = 'trusted' | 'agent' | 'untrusted';

export interface Tainted {
  taint: Taint;
  /** What the expression reads that makes it so, lower case (`issue.body`, `steps.plan`, `item`). */
  label: string;
  /** The whole reference, as written (`steps.plan.outputs.tasks`). */
  ref: string;
}

/**
 * Names compare without case, as the evaluator's do: issue and PR text is anyone's
 * (`issue.body`, `issue.Title`, `toJSON(issue)`, `pr.head.label`…; only the number and URL
 * are not); the outputs of agent and run steps (and of any step read as a whole, or by a
 * computed name), and `item`, are an agent's; inputs (given by a person with the role),
 * answers and approvals, a step's status, `repo`, `run` and `index` are trusted.
 */
export function taintOf(steps: readonly Pick<Step, 'id' | 'kind'>[], expr: Expr): Tainted {
  let found: Tainted = { taint: 'trusted', label: '', ref: '' };
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
    return { taint: 'untrusted', label: whole.toLowerCase(), ref: whole };
  }
  if (root === 'item') return { taint: 'agent', label: 'item', ref: whole };
  if (root === 'steps') {
    const kind = field === undefined ? undefined : steps.find((s) => s.id.toLowerCase() === field)?.kind;
    if ((part === undefined || part === 'outputs') && !PEOPLE_STEPS.has(kind ?? '')) {
      return { taint: 'agent', label: ref.path.slice(0, 2).join('.'), ref: whole };
    }
  }
  return { taint: 'trusted', label: '', ref: whole };
}
