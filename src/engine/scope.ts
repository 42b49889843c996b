// Expression evaluation for the engine. Contexts are built per template and only hold
// the steps the template reads: the evaluator copies every context it is given, and a
// long run's full `steps` context would make each prompt cost as much as the whole run.
import {
  describeExpressionError,
  evaluateCondition,
  evaluateTemplate,
  findSegments,
  parseExpression,
  references,
  type ExpressionContext,
} from '../manifest/expressions.ts';
import type { Draft } from './draft.ts';
import type { Json } from './types.ts';

/** Step ids a template reads, or 'all' when it reads `steps` as a whole. */
const stepsRead = new Map<string, Set<string> | 'all'>();

function stepIdsRead(template: string): Set<string> | 'all' {
  let hit = stepsRead.get(template);
  if (hit) return hit;
  const ids = new Set<string>();
  let all = false;
  const t = template.trim();
  // A bare `if:` condition is an expression without `${{ }}`.
  const sources = t.includes('${{') ? findSegments(t).map((s) => s.source) : [t];
  for (const source of sources) {
    for (const ref of references(parseExpression(source))) {
      if (ref.path[0] !== 'steps') continue;
      if (ref.path[1] === undefined) all = true;
      else ids.add(ref.path[1]);
    }
  }
  hit = all ? 'all' : ids;
  if (stepsRead.size > 5000) stepsRead.clear();
  stepsRead.set(template, hit);
  return hit;
}

export interface ItemScope {
  item?: Json;
  index?: Json;
}

function contextFor(d: Draft, template: string, extra: ItemScope): ExpressionContext {
  const s = d.state;
  const read = stepIdsRead(template);
  const steps: Record<string, Json> = {};
  const ids = read === 'all' ? Object.keys(s.steps) : read;
  for (const id of ids) {
    const st = s.steps[id];
    if (st) steps[id] = { outputs: st.outputs, status: st.status };
  }
  return {
    inputs: s.inputs,
    issue: s.context.issue,
    pr: s.pr ?? s.context.pr,
    repo: s.context.repo,
    run: { id: s.runId, workflow: s.workflow, branch: s.runBranch, base: s.baseBranch, 'started-by': s.startedBy },
    steps,
    item: extra.item ?? null,
    index: extra.index ?? null,
  };
}

export type Rendered<T> = { ok: true; value: T } | { ok: false; error: string };

/** Evaluates a template to typed JSON; errors become a readable message, never a throw. */
export function render(d: Draft, template: string, extra: ItemScope = {}): Rendered<Json> {
  if (!template.includes('${{')) return { ok: true, value: template };
  try {
    return { ok: true, value: evaluateTemplate(template, contextFor(d, template, extra)) };
  } catch (err) {
    return { ok: false, error: describeExpressionError(err) };
  }
}

/** Evaluates a template that must produce text (prompts, titles). */
export function renderText(d: Draft, template: string, extra: ItemScope = {}): Rendered<string> {
  const r = render(d, template, extra);
  if (!r.ok) return r;
  const v = r.value;
  return { ok: true, value: v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v) };
}

/** Evaluates an `if:` condition. */
export function condition(d: Draft, template: string): Rendered<boolean> {
  try {
    return { ok: true, value: evaluateCondition(template, contextFor(d, template, {})) };
  } catch (err) {
    return { ok: false, error: describeExpressionError(err) };
  }
}
