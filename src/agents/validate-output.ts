// Checking a worker's result against the step's `outputs` schema (ajv, draft 2020-12, all
// errors), with messages an agent can act on in a re-prompt.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchema } from '../manifest/types.ts';

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    // The manifest loader already checked the schema strictly; here it only has to work.
    ajv ??= (() => {
      const a = new Ajv2020({ allErrors: true, strict: false });
      addFormats.default(a);
      return a;
    })();
    v = ajv.compile(schema);
    compiled.set(key, v);
  }
  return v;
}

function describe(e: ErrorObject): string {
  const at = e.instancePath === '' ? 'the result' : `\`${e.instancePath}\``;
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return `${at} has a property that is not allowed: \`${String(p.additionalProperty)}\``;
  if (e.keyword === 'required') return `${at} is missing the required property \`${String(p.missingProperty)}\``;
  if (e.keyword === 'enum') return `${at} must be one of ${JSON.stringify(p.allowedValues)}`;
  return `${at} ${e.message ?? 'is invalid'}`;
}

/** Null when the value matches; else one line per problem. */
export function validateOutputs(schema: JsonSchema | null, value: unknown): string | null {
  if (schema === null) return null;
  const v = validator(schema);
  if (v(value)) return null;
  const lines = [...new Set((v.errors ?? []).map(describe))];
  return `the result does not match the step's outputs schema:\n${lines.map((l) => `- ${l}`).join('\n')}`;
}
