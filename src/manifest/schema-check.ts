// Structural validation against schema/workflow.schema.json, with ajv's errors turned
// into sentences a person understands without reading the schema.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { didYouMean, q } from './diagnostics.ts';
import { parsePointer } from './source.ts';
import { STEP_KINDS } from './types.ts';

export const SCHEMA_URL = new URL('../../schema/workflow.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;
let schemaDoc: Record<string, any> = {};

function validator(): ValidateFunction {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as Record<string, any>;
    schemaDoc = schema;
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
    addFormats.default(ajv);
    compiled = ajv.compile(schema);
  }
  return compiled;
}

export interface SchemaProblem {
  pointer: string;
  /** Point at the key rather than the value (unknown keys). */
  atKey: boolean;
  message: string;
}

export function checkSchema(data: unknown): SchemaProblem[] {
  const validate = validator();
  if (validate(data)) return [];
  return explainStepKinds(explain(validate.errors ?? [], data), data);
}

const KIND_KEYS: readonly string[] = STEP_KINDS;

/**
 * "Exactly one kind key" fails in ways a schema can only report obliquely (a `not`,
 * a `false` subschema); say it plainly, once per step, from the data itself.
 */
function explainStepKinds(problems: SchemaProblem[], data: unknown): SchemaProblem[] {
  const steps = (data as { steps?: unknown })?.steps;
  if (!Array.isArray(steps)) return problems;
  let out = problems;
  steps.forEach((step, i) => {
    if (!step || typeof step !== 'object' || Array.isArray(step)) return;
    const kinds = KIND_KEYS.filter((k) => k in step);
    if (kinds.length === 1) return;
    const at = `/steps/${i}`;
    const id = typeof (step as { id?: unknown }).id === 'string' ? q((step as { id: string }).id) : `#${i + 1}`;
    out = out.filter((p) => p.pointer !== at && !(p.pointer.startsWith(at + '/') && / is not allowed /.test(p.message)));
    const message = kinds.length
      ? `step ${id} has ${kinds.map(q).join(' and ')}; a step has exactly one kind: ${KIND_KEYS.join(', ')}`
      : `step ${id} says nothing to do; give it exactly one of ${KIND_KEYS.join(', ')}`;
    out.push({ pointer: at, atKey: false, message });
  });
  return out;
}

// Combinators report their own failure on top of their branches' errors; the
// branches say what is actually wrong, so the wrappers are dropped when they have any.
// (`not` is a real error: reserved names; at a step, explainStepKinds rewrites it.)
// `propertyNames` too: the error inside it names the key.
const WRAPPERS = new Set(['if', 'then', 'else', 'oneOf', 'anyOf', 'allOf', 'dependentSchemas', 'propertyNames']);

function explain(errors: ErrorObject[], data: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  const concrete = errors.filter((e) => !WRAPPERS.has(e.keyword));
  const chosen = dropOtherBranches(concrete.length ? concrete : errors, data);
  for (const e of chosen) {
    const p = describe(e, data);
    const key = p.pointer + '\u0000' + p.message;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return dropShadowed(out);
}

/**
 * A value checked against alternatives (`network: off | default | { allow }`, a limit that is
 * a number or `none`) fails every branch; only the branch of the value's own kind says what is
 * wrong. Dropped: a list of words for a value that is no word (`{ allow: x }` is not `off`), and
 * "must be a mapping" beside a branch that reads the value as a word. Never all of them.
 */
function dropOtherBranches(errors: ErrorObject[], data: unknown): ErrorObject[] {
  const related = (e: ErrorObject, f: ErrorObject): boolean => f !== e && (f.instancePath === e.instancePath || f.instancePath.startsWith(`${e.instancePath}/`));
  const wrongKind = (e: ErrorObject): boolean => {
    const value = valueAt(data, e.instancePath);
    const kind = (v: unknown): string => (v === null ? 'null' : typeof v);
    const params = e.params as Record<string, any>;
    if (e.keyword === 'enum') return (params.allowedValues as unknown[]).every((a) => kind(a) !== kind(value));
    if (e.keyword === 'const') return kind(params.allowedValue) !== kind(value);
    return false;
  };
  return errors.filter((e) => {
    if (wrongKind(e)) return !errors.some((f) => related(e, f) && !wrongKind(f));
    if (e.keyword === 'type') return !errors.some((f) => f !== e && f.instancePath === e.instancePath && f.keyword !== 'type' && !wrongKind(f));
    return true;
  });
}

/** An error about a missing key is noise next to an error about a key that is there but wrong. */
function dropShadowed(problems: SchemaProblem[]): SchemaProblem[] {
  return problems.filter(
    (p) => !p.message.startsWith('missing ') || !problems.some((o) => o !== p && o.pointer.startsWith(p.pointer + '/')),
  );
}

function describe(e: ErrorObject, data: unknown): SchemaProblem {
  const where = placeOf(e.instancePath, data);
  const params = e.params as Record<string, any>;
  const value = valueAt(data, e.instancePath);
  switch (e.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = String(params.additionalProperty ?? params.unevaluatedProperty);
      const inside = placeOf(`${e.instancePath}/${escape(key)}`, data);
      const allowed = allowedKeys(e);
      const hint = allowed.length ? didYouMean(key, allowed) || `; allowed keys: ${allowed.join(', ')}` : '';
      return { pointer: `${e.instancePath}/${escape(key)}`, atKey: true, message: `unknown key ${q(key)} ${inside}${hint}` };
    }
    case 'required': {
      const hint = REQUIRED_HINTS[`${parsePointer(e.instancePath).at(-1) ?? ''}.${params.missingProperty}`];
      // With a hint, at the key whose mapping lacks it (a block mapping starts a line below).
      return { pointer: e.instancePath, atKey: hint !== undefined, message: `missing ${q(params.missingProperty)} ${where}${hint ?? ''}` };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      return {
        pointer: e.instancePath,
        atKey: false,
        message: `${nameOf(e.instancePath)} ${where} must be one of ${allowed.join(', ')}, not ${q(value)}${didYouMean(String(value), allowed)}`,
      };
    }
    case 'const':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} must be ${q(params.allowedValue)}` };
    case 'type':
      return {
        pointer: e.instancePath,
        // A block mapping or list starts on the line after its key; the key is where people look.
        atKey: true,
        message: `${nameOf(e.instancePath)} ${where} must be ${article(String(params.type))}, not ${kindOf(value)}`,
      };
    case 'pattern':
      // A key that breaks `propertyNames` (an MCP server name): say which key, at the key.
      if (e.propertyName !== undefined) {
        return { pointer: `${e.instancePath}/${escape(e.propertyName)}`, atKey: true, message: `${q(e.propertyName)} ${where} is not a valid name; ${patternHint(String(params.pattern))}` };
      }
      return {
        pointer: e.instancePath,
        atKey: false,
        message: `${nameOf(e.instancePath)} ${where} is ${q(value)}; ${patternHint(String(params.pattern))}`,
      };
    case 'propertyNames':
      return { pointer: e.instancePath, atKey: false, message: `a key ${where} is not a valid name` };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      return {
        pointer: e.instancePath,
        atKey: false,
        message: `${nameOf(e.instancePath)} ${where} is ${String(value)}; it ${BOUND[e.keyword]} ${String(params.limit)}`,
      };
    case 'minItems':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} needs at least ${params.limit} item${params.limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} allows at most ${params.limit} items` };
    case 'uniqueItems':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} lists the same value twice (items ${params.j + 1} and ${params.i + 1})` };
    case 'minLength':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} must not be empty` };
    case 'minProperties':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} must not be empty` };
    case 'maxProperties':
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} ${e.message ?? 'has too many keys'}` };
    case 'not': {
      const reserved = (e.schema as { enum?: unknown[] } | undefined)?.enum;
      if (reserved) {
        return { pointer: e.instancePath, atKey: false, message: `${q(value)} ${where} is reserved; it cannot be any of ${reserved.map(String).join(', ')}` };
      }
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} is not allowed here` };
    }
    case 'false schema':
      return { pointer: e.instancePath, atKey: true, message: `${nameOf(e.instancePath)} is not allowed ${where}` };
    case 'dependentRequired':
      return { pointer: e.instancePath, atKey: false, message: `${q(params.property)} ${where} also needs ${q(params.missingProperty)}` };
    default:
      return { pointer: e.instancePath, atKey: false, message: `${nameOf(e.instancePath)} ${where} ${e.message ?? 'is invalid'}` };
  }
}

const BOUND: Record<string, string> = {
  minimum: 'must be at least',
  exclusiveMinimum: 'must be more than',
  maximum: 'must be at most',
  exclusiveMaximum: 'must be less than',
};

// A key that became required, with how to add it (manifests written before it was).
const REQUIRED_HINTS: Record<string, string> = {
  'label.labels':
    ': a label step lists every label it may add (`labels: [bug, enhancement, question]`), and any other name `add` yields (an agent\'s choice, say) is dropped, never added; write there the labels this step is meant to apply',
};

// The schema's name patterns, said in words.
const PATTERN_HINTS: [RegExp, string][] = [
  [/\\\$\\\{\\\{/, 'it must be one `${{ }}` expression'],
  [/^\^\[A-Za-z\]\[A-Za-z0-9_-\]\*\$$/, 'step ids start with a letter and hold only letters, digits, `-` and `_`'],
  [/^\^\[a-z0-9\]\[a-z0-9-\]\*\$$/, 'use lower-case letters, digits and `-`, starting with a letter or digit'],
  [/^\^\[A-Za-z_\]\[A-Za-z0-9_-\]\*\$$/, 'names start with a letter or `_` and hold only letters, digits, `-` and `_`'],
  [/^\^https\?/, 'it must be an http:// or https:// URL'],
  [/^\^\[A-Za-z\]\[A-Za-z0-9_-\]\{0,63\}\$$/, 'it must start with a letter and hold only letters, digits, `-` and `_` (at most 64), as it becomes a key of the agent CLI\'s configuration'],
];

function patternHint(pattern: string): string {
  for (const [re, hint] of PATTERN_HINTS) if (re.test(pattern)) return hint;
  return `it must match ${pattern}`;
}

/** Keys the schema object that reported the error declares, through $ref and combinators. */
function allowedKeys(e: ErrorObject): string[] {
  const keys = new Set<string>();
  collectKeys(e.parentSchema, keys, new Set());
  return [...keys];
}

function collectKeys(node: any, keys: Set<string>, seen: Set<unknown>): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  for (const k of Object.keys(node.properties ?? {})) keys.add(k);
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    let target: any = schemaDoc;
    for (const seg of node.$ref.slice(2).split('/')) target = target?.[seg];
    collectKeys(target, keys, seen);
  }
  for (const k of ['allOf', 'anyOf', 'oneOf']) for (const sub of node[k] ?? []) collectKeys(sub, keys, seen);
  for (const k of ['then', 'else']) collectKeys(node[k], keys, seen);
}

/** "in step `plan`", "in agent `coder`", "at the top level"… */
export function placeOf(pointer: string, data: unknown): string {
  const segs = parsePointer(pointer);
  if (segs[0] === 'steps' && segs.length >= 2) {
    const step = valueAt(data, `/steps/${segs[1]}`) as { id?: unknown } | undefined;
    const label = step && typeof step === 'object' && typeof step.id === 'string' ? q(step.id) : `#${Number(segs[1]) + 1}`;
    return `in step ${label}`;
  }
  if (segs[0] === 'agents' && segs.length >= 2) return `in agent ${q(segs[1])}`;
  if (segs[0] === 'inputs' && segs.length >= 2) return `in input ${q(segs[1])}`;
  if (segs.length >= 2) return `in ${q(segs[0])}`;
  return 'at the top level';
}

function nameOf(pointer: string): string {
  const segs = parsePointer(pointer);
  const last = segs[segs.length - 1];
  if (last === undefined) return 'the document';
  if (/^\d+$/.test(last)) {
    const parent = segs[segs.length - 2];
    return parent ? `item ${Number(last) + 1} of ${q(parent)}` : `item ${Number(last) + 1}`;
  }
  return q(last);
}

export function valueAt(data: unknown, pointer: string): unknown {
  let v: unknown = data;
  for (const seg of parsePointer(pointer)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the text ${q(v)}`;
  return `${typeof v} ${String(v)}`;
}

function article(type: string): string {
  const words: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'text',
    integer: 'a whole number',
    number: 'a number',
    boolean: 'true or false',
    null: 'empty',
  };
  return type
    .split(',')
    .map((t) => words[t] ?? t)
    .join(' or ');
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
