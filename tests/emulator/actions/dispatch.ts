// Checks a workflow_dispatch request as GitHub does before any run exists: the workflow
// has the trigger, the ref exists, every input is declared, required ones are given and
// typed ones hold a value of their type. Then it fills in defaults.
import type { DispatchInput } from './workflow-file.ts';

export class DispatchError extends Error {
  constructor(
    readonly status: 404 | 422,
    message: string,
  ) {
    super(message);
  }
}

/** The combined size of a dispatch's inputs. */
export const MAX_INPUTS_CHARS = 65_535;

export type InputValue = string | number | boolean;

export interface ResolvedInputs {
  /** The `inputs` context: booleans and numbers typed, as Actions gives them. */
  context: Record<string, InputValue>;
  /** `github.event.inputs` in the event payload: what was sent, defaults filled in, as strings. */
  event: Record<string, string>;
}

export function resolveInputs(declared: Record<string, DispatchInput>, given: Record<string, unknown>): ResolvedInputs {
  const unexpected = Object.keys(given).filter((k) => !(k in declared));
  if (unexpected.length > 0) throw new DispatchError(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`);
  // 65,535 characters for all inputs together (workflow syntax docs, "on.workflow_dispatch.inputs";
  // DataDog/integrations-core#25096 measures the whole `inputs` object). Measured here as its JSON,
  // the strictest reading; GitHub's wording of the refusal is not documented.
  const size = JSON.stringify(given).length;
  if (size > MAX_INPUTS_CHARS) throw new DispatchError(422, `inputs are too large: ${size} characters, at most ${MAX_INPUTS_CHARS} are allowed for all inputs together`);
  const context: Record<string, InputValue> = {};
  const event: Record<string, string> = {};
  for (const [name, def] of Object.entries(declared)) {
    const raw = given[name];
    if (raw !== undefined && raw !== null && typeof raw === 'object') {
      throw new DispatchError(422, `Provided value for input '${name}' must be a string, number or boolean`);
    }
    const value = raw === undefined || raw === null ? undefined : String(raw);
    if (value === undefined && def.required && def.default === undefined) throw new DispatchError(422, `Required input '${name}' not provided`);
    const text = value ?? (def.default === undefined || def.default === null ? '' : String(def.default));
    switch (def.type) {
      case 'boolean':
        if (text !== '' && text !== 'true' && text !== 'false') {
          throw new DispatchError(422, `Provided value '${text}' for input '${name}' is not a valid boolean`);
        }
        context[name] = text === 'true';
        break;
      case 'number':
        if (text !== '' && !Number.isFinite(Number(text))) throw new DispatchError(422, `Provided value '${text}' for input '${name}' is not a valid number`);
        context[name] = text === '' ? '' : Number(text);
        break;
      case 'choice':
        if (text !== '' && !(def.options ?? []).includes(text)) {
          throw new DispatchError(422, `Provided value '${text}' for input '${name}' not in the list of allowed values`);
        }
        context[name] = text;
        break;
      default:
        context[name] = text;
    }
    event[name] = def.type === 'boolean' ? String(context[name]) : text;
  }
  return { context, event };
}
