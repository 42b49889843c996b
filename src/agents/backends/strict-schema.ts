// Whether a step's outputs schema can go to OpenAI's structured outputs as it is. codex
// `--output-schema` sends the schema with `strict: true` (openai/codex codex-rs, the
// `codex_output_schema` text format), and the API refuses a schema outside strict mode's
// subset with a 400 for the whole turn ("Structured Outputs", Supported schemas, on
// platform.openai.com): the root an object; every object with `additionalProperties: false`
// and every property listed in `required`; only the keywords below. A schema that does not
// fit is not rewritten (that would change what it accepts): baton keeps asking for the JSON
// in the prompt and validates it itself, as for every other CLI.

type Schema = Record<string, unknown>;

/** The keywords strict mode accepts, by what they apply to. */
const ALLOWED = new Set([
  'type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const',
  '$defs', 'definitions', '$ref', '$schema', 'pattern', 'format', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'minItems', 'maxItems',
]);

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function strictNode(node: unknown): boolean {
  if (!isObject(node)) return false;
  if (Object.keys(node).some((k) => !ALLOWED.has(k))) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || node.properties !== undefined) {
    const props = isObject(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (Object.keys(props).some((k) => !required.includes(k))) return false;
    if (!Object.values(props).every(strictNode)) return false;
  }
  if (node.items !== undefined && !strictNode(node.items)) return false;
  if (node.anyOf !== undefined && !(Array.isArray(node.anyOf) && node.anyOf.every(strictNode))) return false;
  for (const defs of [node.$defs, node.definitions]) {
    if (defs !== undefined && !(isObject(defs) && Object.values(defs).every(strictNode))) return false;
  }
  return true;
}

/** True when the schema is an object schema inside strict mode's subset. */
export function fitsStrictMode(schema: unknown): boolean {
  return isObject(schema) && schema.type === 'object' && strictNode(schema);
}
