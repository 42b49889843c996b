/**
 * Payload validation against @octokit/webhooks-schemas. The schema document is added to
 * ajv once per process; each event definition (`issues$labeled`, `push$event`) compiles
 * the first time it is used.
 */
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ID = 'webhooks';

let ajv: Ajv | undefined;
let definitions: Record<string, unknown> = {};
const compiled = new Map<string, ValidateFunction>();

function load(): Ajv {
  if (ajv !== undefined) return ajv;
  const require = createRequire(import.meta.url);
  const schema = require('@octokit/webhooks-schemas') as { definitions: Record<string, unknown> };
  definitions = schema.definitions;
  ajv = new Ajv({ strict: false, allErrors: true, inlineRefs: false });
  addFormats(ajv);
  const { oneOf: _all, $schema: _draft, ...rest } = schema as unknown as Record<string, unknown>;
  ajv.addSchema({ ...rest, $id: ID });
  return ajv;
}

/** The definition key for an event: `issues$labeled`, or `push$event` for events without actions. */
export function definitionKey(event: string, action: string | undefined): string {
  return action === undefined ? `${event}$event` : `${event}$${action}`;
}

/** Null when the payload is valid, else a readable list of problems. */
export function validateWebhook(event: string, payload: Record<string, unknown>): string | null {
  const instance = load();
  const key = definitionKey(event, typeof payload.action === 'string' ? payload.action : undefined);
  if (definitions[key] === undefined) return `no webhook schema ${key}`;
  let fn = compiled.get(key);
  if (fn === undefined) {
    fn = instance.getSchema(`${ID}#/definitions/${key}`);
    if (fn === undefined) return `no webhook schema ${key}`;
    compiled.set(key, fn);
  }
  if (fn(payload)) return null;
  return `${key}: ${(fn.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
    .join('; ')}`;
}
