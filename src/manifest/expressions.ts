// GitHub Actions expressions (`${{ … }}`) for baton: parsing for the validator and
// evaluation for the engine, both through @actions/expressions so that the syntax and
// functions are exactly those users know from Actions. Values stay typed JSON: a
// template that is one whole expression yields the value itself, not its string form.
import {
  Evaluator,
  ExpressionError,
  Lexer,
  Parser,
  data,
  type Expr,
} from '@actions/expressions';
import { ContextAccess, FunctionCall, IndexAccess, Literal } from '@actions/expressions/ast';

/** Every context a baton expression may read. */
export const CONTEXTS = ['inputs', 'issue', 'pr', 'repo', 'run', 'steps', 'item', 'index'] as const;
export type ContextName = (typeof CONTEXTS)[number];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One `${{ … }}` found in a template, with offsets into the template string. */
export interface Segment {
  source: string;
  /** Offset of `${{` in the template. */
  start: number;
  /** Offset just after `}}`. */
  end: number;
}

export class TemplateError extends Error {
  constructor(
    message: string,
    /** Offset into the template where the problem is. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Splits a template into its `${{ … }}` segments. Strings inside expressions may hold `}}`. */
export function findSegments(template: string): Segment[] {
  const out: Segment[] = [];
  let i = template.indexOf('${{');
  while (i !== -1) {
    let j = i + 3;
    let inString = false;
    for (; j < template.length; j++) {
      const c = template[j];
      if (c === "'") {
        // '' is an escaped quote inside a string literal
        if (inString && template[j + 1] === "'") j++;
        else inString = !inString;
      } else if (!inString && c === '}' && template[j + 1] === '}') break;
    }
    if (j >= template.length) throw new TemplateError('`${{` is never closed with `}}`', i);
    out.push({ source: template.slice(i + 3, j).trim(), start: i, end: j + 2 });
    i = template.indexOf('${{', j + 2);
  }
  return out;
}

/** Whether the template is exactly one expression (and so yields a typed value). */
export function isWholeExpression(template: string): boolean {
  const t = template.trim();
  if (!t.startsWith('${{') || !t.endsWith('}}')) return false;
  const segs = findSegments(t);
  return segs.length === 1 && segs[0]!.start === 0 && segs[0]!.end === t.length;
}

const parsed = new Map<string, Expr>();

/** Parses one expression (without `${{ }}`); throws ExpressionError with a readable message. */
export function parseExpression(source: string, contexts: readonly string[] = CONTEXTS): Expr {
  const key = contexts.join(',') + '\u0000' + source;
  const hit = parsed.get(key);
  if (hit) return hit;
  const { tokens } = new Lexer(source).lex();
  const expr = new Parser(tokens, [...contexts], []).parse();
  if (!expr) throw new TemplateError('the expression is empty', 0);
  if (parsed.size > 5000) parsed.clear();
  parsed.set(key, expr);
  return expr;
}

export function describeExpressionError(err: unknown): string {
  if (err instanceof ExpressionError || err instanceof TemplateError || err instanceof Error) {
    return err.message.replace(/\.$/, '');
  }
  return String(err);
}

/** A context read found in an expression: `steps.plan.outputs.tasks` → ['steps','plan','outputs','tasks']. */
export interface Reference {
  path: string[];
}

/** Every context path an expression reads (literal keys only; `x[y]` stops the path). */
export function references(expr: Expr): Reference[] {
  const out: Reference[] = [];
  const walk = (e: Expr): void => {
    const path = accessPath(e);
    if (path) {
      out.push({ path });
      return;
    }
    if (e instanceof IndexAccess) {
      walk(e.expr);
      walk(e.index);
      return;
    }
    for (const child of children(e)) walk(child);
  };
  walk(expr);
  return out;
}

/** Function names an expression calls, as written. */
export function functionsCalled(expr: Expr): string[] {
  const out: string[] = [];
  const walk = (e: Expr): void => {
    if (e instanceof FunctionCall) out.push(e.functionName.lexeme);
    for (const child of children(e)) walk(child);
  };
  walk(expr);
  return out;
}

function accessPath(e: Expr): string[] | undefined {
  return access(e)?.path;
}

/** The literal path of an access; `open` is false once a computed index (`steps[x]`) cut it short. */
function access(e: Expr): { path: string[]; open: boolean } | undefined {
  if (e instanceof ContextAccess) return { path: [e.name.lexeme], open: true };
  if (e instanceof IndexAccess) {
    const head = access(e.expr);
    if (!head) return undefined;
    if (!head.open) return head;
    if (e.index instanceof Literal && e.index.literal.kind === data.Kind.String) {
      return { path: [...head.path, e.index.literal.coerceString()], open: true };
    }
    // A computed index (`steps[x]`): the known prefix is still a reference, and what follows
    // (`steps[x].outputs`) is not a name in the context it would seem to be.
    return { path: head.path, open: false };
  }
  return undefined;
}

function children(e: Expr): Expr[] {
  const anyE = e as unknown as Record<string, unknown>;
  const out: Expr[] = [];
  for (const key of ['expr', 'left', 'right', 'group', 'index']) {
    const v = anyE[key];
    if (v && typeof v === 'object' && 'accept' in v) out.push(v as Expr);
  }
  for (const key of ['args']) {
    const v = anyE[key];
    if (Array.isArray(v)) out.push(...(v as Expr[]));
  }
  return out;
}

/** The values expressions read: every context is plain JSON. */
export type ExpressionContext = Partial<Record<ContextName, Json>>;

function toData(value: Json): data.ExpressionData {
  return JSON.parse(JSON.stringify(value ?? null), data.reviver) as data.ExpressionData;
}

function fromData(value: data.ExpressionData): Json {
  return JSON.parse(JSON.stringify(value, data.replacer)) as Json;
}

function contextData(ctx: ExpressionContext): data.Dictionary {
  const dict = new data.Dictionary();
  for (const name of CONTEXTS) dict.add(name, toData(ctx[name] ?? null));
  return dict;
}

/** Evaluates one expression (without `${{ }}`) to typed JSON. */
export function evaluateExpression(source: string, ctx: ExpressionContext): Json {
  const expr = parseExpression(source);
  return fromData(new Evaluator(expr, contextData(ctx)).evaluate());
}

/**
 * Evaluates a template: a whole expression yields its typed value; text with embedded
 * expressions yields a string, each expression coerced as Actions does (objects and
 * arrays as JSON, which is what people mean when they embed them in a prompt).
 */
export function evaluateTemplate(template: string, ctx: ExpressionContext): Json {
  if (isWholeExpression(template)) return evaluateExpression(findSegments(template.trim())[0]!.source, ctx);
  const segs = findSegments(template);
  if (segs.length === 0) return template;
  let out = '';
  let last = 0;
  for (const seg of segs) {
    out += template.slice(last, seg.start) + stringify(evaluateExpression(seg.source, ctx));
    last = seg.end;
  }
  return out + template.slice(last);
}

export function stringify(value: Json): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Actions truthiness: false, 0, -0, NaN, '', null are false. */
export function truthy(value: Json): boolean {
  if (value === null || value === false || value === '' || value === 0) return false;
  if (typeof value === 'number' && Number.isNaN(value)) return false;
  return true;
}

/** Evaluates an `if:` condition; like Actions, a bare condition without `${{ }}` is an expression. */
export function evaluateCondition(condition: string, ctx: ExpressionContext): boolean {
  const t = condition.trim();
  const value = t.includes('${{') ? evaluateTemplate(t, ctx) : evaluateExpression(t, ctx);
  return truthy(value);
}
