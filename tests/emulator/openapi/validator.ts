/**
 * Validates requests and responses against the committed subset of GitHub's OpenAPI
 * description (subset.json, written by scripts/extract-openapi.ts).
 *
 * OpenAPI 3.0 is not quite JSON Schema, so the subset is converted once on load:
 * `nullable: true` becomes a `null` alternative, and `oneOf` becomes `anyOf` — GitHub's
 * description uses `oneOf` for alternatives that overlap (two object shapes without
 * `additionalProperties: false`; three nullable types), which strict `oneOf` would
 * reject for valid GitHub answers.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  key: string;
  operationId: string;
  documentationUrl: string;
  parameters: Parameter[];
  requestBody?: { required: boolean; schema?: Schema };
  /** Status → JSON schema (null when the status has no body, e.g. 204). */
  responses: Map<string, Schema | null>;
}

const SUBSET = new URL('./subset.json', import.meta.url);
const ROOT_ID = 'github';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
      out.$ref = `${ROOT_ID}${value}`;
      continue;
    }
    out[key === 'oneOf' ? 'anyOf' : key] = key === 'properties' ? mapValues(value, convert) : convert(value);
  }
  if ((node as { nullable?: unknown }).nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)]));
}

export interface ValidationProblem {
  message: string;
  errors: ErrorObject[];
}

/** GitHub's noreply address of a bot account (an App's `<slug>[bot]`). */
export const NOREPLY_BOT_EMAIL = /^\d+\+[A-Za-z0-9-]+\[bot\]@users\.noreply\.github\.com$/;

export class OpenApi {
  readonly operations = new Map<string, Operation>();
  private readonly ajv: Ajv;
  private readonly compiled = new WeakMap<Schema, ValidateFunction>();

  constructor(subset: Record<string, unknown> = JSON.parse(readFileSync(SUBSET, 'utf8')) as Record<string, unknown>) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, inlineRefs: false });
    addFormats(this.ajv);
    // Formats GitHub's description uses that ajv-formats does not define: accept them.
    for (const format of ['repo.nwo', 'binary', 'timestamp']) this.ajv.addFormat(format, true);
    // GitHub's own answers break its `format: email` for commits by a bot account: their
    // address is the noreply one, `<id>+<login>[bot]@users.noreply.github.com` (e.g. the
    // well-known 41898282+github-actions[bot]@users.noreply.github.com), and `[`/`]` are
    // not allowed by the format. Such addresses are accepted; any other must be an email.
    const email = this.ajv.formats.email as RegExp;
    this.ajv.addFormat('email', (value: string) => email.test(value) || NOREPLY_BOT_EMAIL.test(value));
    const components = subset.components as Record<string, Record<string, unknown>>;
    this.ajv.addSchema({ $id: ROOT_ID, components: convert(components) as Schema });
    const resolve = <T>(node: unknown): T => {
      const ref = (node as { $ref?: string } | undefined)?.$ref;
      if (ref === undefined) return node as T;
      const [, , kind, name] = ref.split('/');
      return components[kind!]![name!] as T;
    };
    for (const [path, methods] of Object.entries(subset.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path}`;
        const body = op.requestBody as { required?: boolean; content?: Record<string, { schema?: Schema }> } | undefined;
        const responses = new Map<string, Schema | null>();
        for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, unknown>)) {
          const resolved = resolve<{ content?: Record<string, { schema?: Schema }> }>(response);
          const json = Object.entries(resolved.content ?? {}).find(([type]) => type.includes('json'));
          responses.set(status, json?.[1].schema === undefined ? null : (convert(json[1].schema) as Schema));
        }
        const bodySchema = body?.content?.['application/json']?.schema;
        this.operations.set(key, {
          key,
          operationId: String(op.operationId),
          documentationUrl: (op.externalDocs as { url?: string } | undefined)?.url ?? 'https://docs.github.com/rest',
          parameters: ((op.parameters ?? []) as unknown[]).map((p) => {
            const param = resolve<Parameter>(p);
            return param.schema === undefined ? param : { ...param, schema: convert(param.schema) as Schema };
          }),
          ...(body === undefined
            ? {}
            : { requestBody: { required: body.required === true, ...(bodySchema === undefined ? {} : { schema: convert(bodySchema) as Schema }) } }),
          responses,
        });
      }
    }
  }

  private validator(schema: Schema): ValidateFunction {
    let fn = this.compiled.get(schema);
    if (fn === undefined) {
      fn = this.ajv.compile(schema);
      this.compiled.set(schema, fn);
    }
    return fn;
  }

  validate(schema: Schema, value: unknown): ErrorObject[] | null {
    const fn = this.validator(schema);
    return fn(value) ? null : (fn.errors ?? []);
  }

  /** Problems with the request body, in the words GitHub uses (`"title" wasn't supplied.`). */
  checkRequestBody(op: Operation, body: unknown): ValidationProblem | null {
    if (op.requestBody === undefined) return null;
    if (body === undefined) {
      if (!op.requestBody.required) return null;
      // GitHub treats a missing body as an empty object, then complains about fields.
      body = {};
    }
    if (op.requestBody.schema === undefined) return null;
    const errors = this.validate(op.requestBody.schema, body);
    if (errors === null) return null;
    return { message: `Invalid request.\n\n${describe(errors, body)}`, errors };
  }

  /** Problems with a response: a mismatch here is a bug of the emulator, not of the client. */
  checkResponse(op: Operation, status: number, body: unknown): string | null {
    const documented = op.responses.has(String(status));
    if (!documented) {
      // Error statuses GitHub does not always document (404 on most routes) are fine.
      return status < 300 ? `${op.key}: status ${status} is not documented (documented: ${[...op.responses.keys()].join(', ')})` : null;
    }
    const schema = op.responses.get(String(status));
    if (schema === null || schema === undefined) {
      // GitHub's description omits error bodies it does send (`{ message: 'Merge conflict' }` with 409).
      if (status >= 400 || body === undefined || body === null || body === '') return null;
      return `${op.key}: status ${status} has no body, but one was sent`;
    }
    const errors = this.validate(schema, body);
    if (errors === null) return null;
    return `${op.key} → ${status}: ${errors
      .slice(0, 8)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
      .join('; ')}`;
  }
}

function describe(errors: ErrorObject[], body: unknown): string {
  const lines = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'required') {
      lines.add(`"${String((error.params as { missingProperty: string }).missingProperty)}" wasn't supplied.`);
    } else if (error.keyword === 'type') {
      const at = error.instancePath.replace(/^\//, '');
      const value = at.split('/').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], body);
      lines.add(`For '${at === '' ? 'the request body' : `properties/${at}`}', ${JSON.stringify(value)} is not ${article(String((error.params as { type: string }).type))}.`);
    } else if (error.keyword === 'enum') {
      const at = error.instancePath.replace(/^\//, '');
      const value = at.split('/').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], body);
      lines.add(`${JSON.stringify(value)} is not a member of enum ${at}.`);
    } else if (error.keyword !== 'anyOf' && error.keyword !== 'if') {
      lines.add(`${error.instancePath || 'body'} ${error.message ?? 'is invalid'}.`);
    }
  }
  return [...lines].join('\n');
}

function article(type: string): string {
  const t = type.split(',')[0]!;
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

let shared: OpenApi | undefined;

/** One converted subset per process: loading it costs ~100 ms, compiling is lazy per schema. */
export function openApi(): OpenApi {
  shared ??= new OpenApi();
  return shared;
}
