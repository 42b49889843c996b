// `${{ }}` evaluation for the runner, with @actions/expressions doing the language so
// operators, functions and coercions are those of GitHub Actions. What this file adds
// is what lives in the runner rather than the language: the contexts, the job-status
// functions (success(), failure(), always(), cancelled()) and the implicit `success() &&`
// that Actions puts in front of every `if:` that names no status function.
import { Evaluator, Lexer, Parser, data, type Expr } from '@actions/expressions';
import { FunctionCall } from '@actions/expressions/ast';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { StepFailure } from './types.ts';
import type { Scalar } from './workflow-file.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const RUNNER_CONTEXTS = [
  'github', 'inputs', 'secrets', 'env', 'runner', 'steps', 'needs', 'job', 'vars', 'matrix', 'strategy',
] as const;
export type ContextName = (typeof RUNNER_CONTEXTS)[number];
export type Contexts = Partial<Record<ContextName, Json>>;

/** What the status functions read: the job (or, for a job's `if`, its needs) so far. */
export interface StatusState {
  failed: boolean;
  cancelled: boolean;
  /** For a job's `if`: a job it needs did not succeed (skipped), so success() is false. */
  blocked?: boolean;
}

const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled'];

/** A workflow expression that cannot be parsed or evaluated: the step (or job) using it fails. */
export class ExpressionFailure extends StepFailure {}

function statusFunctions(state: StatusState): Map<string, FunctionDefinition> {
  const fn = (name: string, value: () => boolean): [string, FunctionDefinition] => [
    name,
    { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value()) },
  ];
  return new Map([
    fn('success', () => succeeded(state)),
    fn('failure', () => state.failed),
    fn('always', () => true),
    fn('cancelled', () => state.cancelled),
  ]);
}

function succeeded(state: StatusState): boolean {
  return !state.failed && !state.cancelled && !state.blocked;
}

const FUNCTION_INFO = STATUS_FUNCTIONS.map((name) => ({ name, minArgs: 0, maxArgs: 0 }));

function parseExpr(source: string): Expr {
  try {
    const { tokens } = new Lexer(source).lex();
    const expr = new Parser(tokens, [...RUNNER_CONTEXTS], FUNCTION_INFO).parse();
    if (!expr) throw new Error('the expression is empty');
    return expr;
  } catch (err) {
    throw new ExpressionFailure(`cannot parse \`${source}\`: ${(err as Error).message}`);
  }
}

function toData(value: Json | undefined): data.ExpressionData {
  return JSON.parse(JSON.stringify(value ?? null), data.reviver) as data.ExpressionData;
}

function fromData(value: data.ExpressionData): Json {
  return JSON.parse(JSON.stringify(value, data.replacer)) as Json;
}

const ALWAYS_OK: StatusState = { failed: false, cancelled: false };

/** Evaluates one expression (no `${{ }}`) to JSON. */
export function evaluate(source: string, ctx: Contexts, state: StatusState = ALWAYS_OK): Json {
  const expr = parseExpr(source);
  const dict = new data.Dictionary();
  for (const name of RUNNER_CONTEXTS) dict.add(name, toData(ctx[name]));
  try {
    return fromData(new Evaluator(expr, dict, statusFunctions(state)).evaluate());
  } catch (err) {
    throw new ExpressionFailure(`cannot evaluate \`${source}\`: ${(err as Error).message}`);
  }
}

interface Segment {
  source: string;
  start: number;
  end: number;
}

/** The `${{ … }}` segments of a string; `}}` inside a quoted string does not close one. */
export function segments(template: string): Segment[] {
  const out: Segment[] = [];
  let i = template.indexOf('${{');
  while (i !== -1) {
    let j = i + 3;
    let quoted = false;
    for (; j < template.length; j++) {
      if (template[j] === "'") quoted = !quoted; // '' (an escaped quote) toggles twice
      else if (!quoted && template[j] === '}' && template[j + 1] === '}') break;
    }
    if (j >= template.length) throw new ExpressionFailure(`\`\${{\` is never closed in: ${template}`);
    out.push({ source: template.slice(i + 3, j).trim(), start: i, end: j + 2 });
    i = template.indexOf('${{', j + 2);
  }
  return out;
}

/** Actions' string form of a value; objects and arrays as JSON, which is what a script wants. */
export function toText(value: Json | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Evaluates a value as written in the workflow: a string that is exactly one `${{ }}`
 * keeps the expression's type, other strings are interpolated, non-strings pass through.
 */
export function template(value: Scalar | undefined, ctx: Contexts, state?: StatusState): Json {
  if (typeof value !== 'string') return value ?? null;
  const segs = segments(value);
  if (segs.length === 0) return value;
  const trimmed = value.trim();
  if (segs.length === 1 && value.slice(0, segs[0]!.start).trim() === '' && value.slice(segs[0]!.end).trim() === '') {
    if (trimmed.startsWith('${{')) return evaluate(segs[0]!.source, ctx, state);
  }
  let out = '';
  let last = 0;
  for (const seg of segs) {
    out += value.slice(last, seg.start) + toText(evaluate(seg.source, ctx, state));
    last = seg.end;
  }
  return out + value.slice(last);
}

export function templateText(value: Scalar | undefined, ctx: Contexts, state?: StatusState): string {
  return toText(template(value, ctx, state));
}

/** Evaluates every value of a map as text (env, with). */
export function templateMap(map: Record<string, Scalar>, ctx: Contexts, state?: StatusState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = templateText(v, ctx, state);
  return out;
}

/** Actions truthiness. */
export function truthy(value: Json): boolean {
  if (value === null || value === false || value === '' || value === 0) return false;
  if (typeof value === 'number' && Number.isNaN(value)) return false;
  return true;
}

function callsStatusFunction(expr: Expr): boolean {
  if (expr instanceof FunctionCall && STATUS_FUNCTIONS.includes(expr.functionName.lexeme.toLowerCase())) return true;
  const e = expr as unknown as Record<string, unknown>;
  for (const key of ['expr', 'left', 'right', 'group', 'index']) {
    const child = e[key];
    if (child && typeof child === 'object' && 'accept' in child && callsStatusFunction(child as Expr)) return true;
  }
  const args = e.args;
  return Array.isArray(args) && (args as Expr[]).some(callsStatusFunction);
}

/**
 * Evaluates a job or step `if:`. Absent means `success()`; a condition that names no
 * status function is `success() && (condition)`, so a failed job skips it like Actions does.
 */
export function condition(value: Scalar | undefined, ctx: Contexts, state: StatusState): boolean {
  if (value === undefined || value === null || value === '') return succeeded(state);
  if (typeof value === 'boolean' || typeof value === 'number') return truthy(value) && succeeded(state);
  let source = value.trim();
  const segs = segments(source);
  if (segs.length === 1 && segs[0]!.start === 0 && segs[0]!.end === source.length) source = segs[0]!.source;
  else if (segs.length > 0) {
    // Text around `${{ }}` makes a non-empty string: truthy, as on GitHub.
    return truthy(template(source, ctx, state)) && succeeded(state);
  }
  const expr = parseExpr(source);
  const result = truthy(evaluate(source, ctx, state));
  return callsStatusFunction(expr) ? result : result && succeeded(state);
}
