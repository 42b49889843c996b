// Expression evaluation for the engine. Contexts are built per template and only hold
// the steps the template reads: the evaluator copies every context it is given, and a
// long run's full `steps` context would make each prompt cost as much as the whole run.
import {
  CONTEXTS,
  describeExpressionError,
  evaluateCondition,
  evaluateTemplate,
  findSegments,
  isWholeExpression,
  parseExpression,
  references,
  stringify,
  type ExpressionContext,
} from '../manifest/expressions.ts';
import { taintOf, type Tainted } from '../manifest/taint.ts';
import { fenceUntrusted, labelAgentOutput } from './untrusted.ts';
import { quietMentions } from './mentions.ts';
import { hasIssueNumber, withoutIssueReferences } from './issue-refs.ts';
import type { Draft } from './draft.ts';
import type { Json } from './types.ts';

/** What a template reads: its root contexts, and which steps (or 'all' of them). */
interface Reads {
  roots: Set<string>;
  steps: Set<string> | 'all';
}

const readsCache = new Map<string, Reads>();

function readsOf(template: string): Reads {
  let hit = readsCache.get(template);
  if (hit) return hit;
  const roots = new Set<string>();
  const ids = new Set<string>();
  let all = false;
  const t = template.trim();
  // A bare `if:` condition is an expression without `${{ }}`.
  const sources = t.includes('${{') ? findSegments(t).map((s) => s.source) : [t];
  for (const source of sources) {
    for (const ref of references(parseExpression(source))) {
      // Context names compare without case (`ISSUE.body` is `issue.body`), as in GitHub Actions.
      const root = ref.path[0]!.toLowerCase();
      roots.add(root);
      if (root !== 'steps') continue;
      if (ref.path[1] === undefined) all = true;
      else ids.add(ref.path[1]);
    }
  }
  hit = { roots, steps: all ? 'all' : ids };
  if (readsCache.size > 5000) readsCache.clear();
  readsCache.set(template, hit);
  return hit;
}

export interface ItemScope {
  item?: Json;
  index?: Json;
}

function contextFor(d: Draft, template: string, extra: ItemScope): ExpressionContext {
  const s = d.state;
  const reads = readsOf(template);
  const ctx: ExpressionContext = {};
  // Only the contexts the template reads: the evaluator copies each one it is given.
  for (const root of reads.roots) {
    switch (root) {
      case 'inputs':
        ctx.inputs = s.inputs;
        break;
      case 'issue':
        ctx.issue = s.context.issue;
        break;
      case 'pr':
        ctx.pr = s.pr ?? s.context.pr;
        break;
      case 'repo':
        ctx.repo = s.context.repo;
        break;
      case 'run':
        ctx.run = { id: s.runId, workflow: s.workflow, branch: s.runBranch, base: s.baseBranch, 'started-by': s.startedBy };
        break;
      case 'item':
        ctx.item = extra.item ?? null;
        break;
      case 'index':
        ctx.index = extra.index ?? null;
        break;
      case 'steps': {
        const steps: Record<string, Json> = {};
        // Step names compare without case in expressions, as every other name does.
        const list = reads.steps === 'all' ? s.steps : [...reads.steps].map((id) => d.findStep(id) ?? s.steps.find((st) => st.id.toLowerCase() === id.toLowerCase()));
        for (const st of list) if (st) steps[st.id] = { outputs: st.outputs, status: st.status };
        ctx.steps = steps;
        break;
      }
    }
  }
  return ctx;
}

/**
 * Most templates only read plain paths (`${{ steps.plan.outputs.summary }}`,
 * `${{ item }}`). Those are resolved here directly, with the evaluator's rules
 * (case-insensitive keys, missing → null, embedded values stringified the same way),
 * because the full evaluator copies its contexts on every call and prompts are
 * rendered on every dispatch. Anything else goes to the evaluator.
 */
const PLAIN_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
const KNOWN_ROOTS = new Set<string>(CONTEXTS);

type Plan = { whole: boolean; parts: (string | string[])[] } | null;
const plans = new Map<string, Plan>();

function planOf(template: string): Plan {
  let plan = plans.get(template);
  if (plan !== undefined) return plan;
  plan = { whole: isWholeExpression(template), parts: [] };
  const segs = findSegments(template);
  let last = 0;
  for (const seg of segs) {
    const path = seg.source.split('.');
    if (!PLAIN_PATH.test(seg.source) || !KNOWN_ROOTS.has(path[0]!)) {
      plan = null;
      break;
    }
    plan.parts.push(template.slice(last, seg.start), path);
    last = seg.end;
  }
  if (plan) plan.parts.push(template.slice(last));
  if (plans.size > 5000) plans.clear();
  plans.set(template, plan);
  return plan;
}

/**
 * The value at `path`, keys matched in any case; undefined when an object on the way has two keys
 * that match (`z` and `Z`): which one the evaluator's case-insensitive objects keep is its own
 * business (seed 1185263468 found one), so such a path is left to it.
 */
function lookup(ctx: ExpressionContext, path: string[]): Json | undefined {
  let value: Json = (ctx as Record<string, Json>)[path[0]!] ?? null;
  for (let i = 1; i < path.length; i++) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    const lower = path[i]!.toLowerCase();
    const found = Object.keys(value).filter((k) => k.toLowerCase() === lower);
    if (found.length > 1) return undefined;
    value = found.length === 0 ? null : (value[found[0]!] ?? null);
  }
  return value;
}

/** Exported for the test that holds this shortcut to the evaluator's answers. */
export function evaluatePlain(template: string, ctx: ExpressionContext): { value: Json } | undefined {
  const plan = planOf(template);
  if (!plan) return undefined;
  if (plan.whole) {
    const value = lookup(ctx, plan.parts[1] as string[]);
    if (value === undefined || caseCollides(value)) return undefined;
    // The evaluator goes through JSON, where -0 is 0; the shortcut must agree.
    return { value: Object.is(value, -0) ? 0 : value };
  }
  let out = '';
  for (const part of plan.parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = lookup(ctx, part);
    if (value === undefined || caseCollides(value)) return undefined;
    out += stringify(value);
  }
  return { value: out };
}

/**
 * Whether an object in `value` has two keys that differ only in case (`f` and `F`, in an agent's
 * output): the evaluator's objects are case-insensitive and keep one of them, so such a value is
 * left to the evaluator rather than rendered differently by the shortcut.
 */
function caseCollides(value: Json | undefined): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(caseCollides);
  const seen = new Set<string>();
  for (const [k, v] of Object.entries(value)) {
    const folded = k.toLowerCase();
    if (seen.has(folded) || caseCollides(v)) return true;
    seen.add(folded);
  }
  return false;
}

export type Rendered<T> = { ok: true; value: T } | { ok: false; error: string };

/** Evaluates a template to typed JSON; errors become a readable message, never a throw. */
export function render(d: Draft, template: string, extra: ItemScope = {}): Rendered<Json> {
  if (!template.includes('${{')) return { ok: true, value: template };
  try {
    const ctx = contextFor(d, template, extra);
    const plain = evaluatePlain(template, ctx);
    return { ok: true, value: plain ? plain.value : evaluateTemplate(template, ctx) };
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

/** The template as this run reads it: without `#${{ issue.number }}` when the run has no issue (./issue-refs.ts). */
function forThisRun(d: Draft, template: string): string {
  return hasIssueNumber(d.state.context.issue) ? template : withoutIssueReferences(template);
}

/**
 * Text for people (questions, an approval's message, a pull request's title and body): like
 * renderText, but a run without an issue says no `#0`, and a value that came from an agent or
 * from anyone who can open an issue has its `@mentions` made inert (./mentions.ts) — posted by
 * baton's bot, a prompt-injected "@org/everyone" would page people in baton's name. The
 * manifest's own words mention whom they name.
 */
export function renderProse(d: Draft, template: string, extra: ItemScope = {}): Rendered<string> {
  template = forThisRun(d, template);
  if (!template.includes('${{')) return { ok: true, value: template };
  return renderSegments(d, template, extra, (text, taint) => (taint.taint === 'trusted' ? text : quietMentions(text)));
}

/** Whether a template's value comes, in part, from an agent or from text anyone may write. */
export function isTainted(d: Draft, template: string): Rendered<boolean> {
  try {
    const sources = template.includes('${{') ? findSegments(template).map((s) => s.source) : [];
    return { ok: true, value: sources.some((source) => taintFor(d, source).taint !== 'trusted') };
  } catch (err) {
    return { ok: false, error: describeExpressionError(err) };
  }
}

function taintFor(d: Draft, source: string): Tainted {
  return taintOf(d.workflow.steps, parseExpression(source));
}

/** Renders each `${{ }}` of a template on its own and places its text by where it comes from. */
function renderSegments(d: Draft, template: string, extra: ItemScope, place: (text: string, taint: Tainted) => string): Rendered<string> {
  let segments;
  try {
    segments = findSegments(template);
  } catch (err) {
    return { ok: false, error: describeExpressionError(err) };
  }
  let out = '';
  let last = 0;
  for (const seg of segments) {
    out += template.slice(last, seg.start);
    last = seg.end;
    const r = render(d, template.slice(seg.start, seg.end), extra);
    if (!r.ok) return r;
    const text = stringify(r.value);
    let taint: Tainted;
    try {
      taint = taintFor(d, seg.source);
    } catch (err) {
      return { ok: false, error: describeExpressionError(err) };
    }
    out += text === '' ? text : place(text, taint);
  }
  return { ok: true, value: out + template.slice(last) };
}

/**
 * A prompt for an agent: like renderText, but each `${{ }}` is rendered on its own and its
 * value placed according to where it comes from — issue and PR text fenced and labelled as
 * untrusted data, an agent's output labelled as such, trusted values as they are — whatever
 * the spelling of the expression (docs/security.md, "Prompt injection"). A run without an issue
 * says no `#0` (./issue-refs.ts).
 */
export function renderPrompt(d: Draft, template: string, extra: ItemScope = {}): Rendered<string> {
  if (!template.includes('${{')) return { ok: true, value: template };
  return renderSegments(d, forThisRun(d, template), extra, (text, taint) =>
    taint.taint === 'trusted' ? text : taint.taint === 'untrusted' ? fenceUntrusted(taint.label, text) : labelAgentOutput(taint.label, text),
  );
}

/** Evaluates an `if:` condition. */
export function condition(d: Draft, template: string): Rendered<boolean> {
  try {
    return { ok: true, value: evaluateCondition(template, contextFor(d, template, {})) };
  } catch (err) {
    return { ok: false, error: describeExpressionError(err) };
  }
}
