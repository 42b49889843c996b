// Validation of what workers return against the step's `outputs` JSON Schema. Compiled
// validators are cached by the schema's JSON text: the same workflow is validated
// against on every event and compiling is far slower than validating.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../manifest/types.ts';
import type { Json } from './types.ts';

// ajv-formats is CommonJS with a default export; under NodeNext it may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

const byText = new Map<string, ValidateFunction>();
// The same schema object comes with every event of a run: skip even the stringify.
const byObject = new WeakMap<object, ValidateFunction>();

/** What every reviewer must return. */
export const REVIEW_OUTPUTS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['approved', 'summary'],
  properties: {
    approved: { type: 'boolean' },
    summary: { type: 'string' },
    comments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['body'],
        properties: {
          path: { type: 'string' },
          line: { type: 'integer', minimum: 1 },
          start_line: { type: 'integer', minimum: 1 },
          suggestion: { type: 'string' },
          body: { type: 'string' },
        },
        // A range ends at `line`; a suggestion replaces lines of a file, so it needs them.
        dependentRequired: { start_line: ['line'], suggestion: ['path', 'line'] },
      },
    },
  },
};

function validatorFor(schema: JsonSchema): ValidateFunction {
  const known = typeof schema === 'object' ? byObject.get(schema) : undefined;
  if (known) return known;
  const text = JSON.stringify(schema);
  let validate = byText.get(text);
  if (!validate) {
    validate = ajv.compile(schema);
    byText.set(text, validate);
  }
  if (typeof schema === 'object') byObject.set(schema, validate);
  return validate;
}

/** null when `value` matches, else ajv's error text (kept for the re-prompt). */
export function outputsError(schema: JsonSchema | undefined | null, value: Json): string | null {
  if (schema === undefined || schema === null) return null;
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (err) {
    // The loader validates schemas; this is a last line of defence, not a crash.
    return `the step's outputs schema does not compile: ${(err as Error).message}`;
  }
  if (validate(value)) return null;
  return ajv.errorsText(validate.errors, { dataVar: 'outputs' });
}
