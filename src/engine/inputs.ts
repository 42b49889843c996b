// Run inputs: words from `/baton <workflow> key=value` (strings) or typed values from
// MCP/CLI, checked against the workflow's `inputs` and given their declared types.
import type { Workflow } from '../manifest/types.ts';
import type { Json } from './types.ts';

export type InputsResult = { ok: true; inputs: Record<string, Json> } | { ok: false; errors: string[] };

export function resolveInputs(workflow: Workflow, given: Record<string, Json>): InputsResult {
  const errors: string[] = [];
  const inputs: Record<string, Json> = {};
  for (const name of Object.keys(given)) {
    if (!(name in workflow.inputs)) errors.push(`unknown input \`${name}\``);
  }
  for (const [name, spec] of Object.entries(workflow.inputs)) {
    const raw = name in given ? given[name] : spec.default;
    if (raw === undefined || raw === null) {
      if (spec.required) errors.push(`input \`${name}\` is required`);
      // Like Actions: a missing optional input reads as the empty value of its type.
      inputs[name] = spec.type === 'boolean' ? false : spec.type === 'number' ? null : '';
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : raw;
    switch (spec.type) {
      case 'number': {
        const n = typeof text === 'number' ? text : typeof text === 'string' && text !== '' ? Number(text) : NaN;
        if (!Number.isFinite(n)) errors.push(`input \`${name}\` must be a number, got \`${String(raw)}\``);
        else inputs[name] = n;
        break;
      }
      case 'boolean': {
        if (text === true || text === 'true') inputs[name] = true;
        else if (text === false || text === 'false') inputs[name] = false;
        else errors.push(`input \`${name}\` must be true or false, got \`${String(raw)}\``);
        break;
      }
      case 'choice': {
        const s = String(text);
        if (spec.options && !spec.options.includes(s)) {
          errors.push(`input \`${name}\` must be one of ${spec.options.map((o) => `\`${o}\``).join(', ')}, got \`${s}\``);
        } else inputs[name] = s;
        break;
      }
      default:
        inputs[name] = typeof raw === 'string' ? raw : JSON.stringify(raw);
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, inputs };
}

/** One usage line per input, for replies to bad commands. */
export function describeInputs(workflow: Workflow): string {
  const entries = Object.entries(workflow.inputs);
  if (entries.length === 0) return `\`${workflow.name}\` takes no inputs.`;
  return entries
    .map(([name, spec]) => `- \`${name}\` (${spec.type}${spec.required ? ', required' : ''}${spec.default !== undefined ? `, default \`${String(spec.default)}\`` : ''})${spec.description ? `: ${spec.description}` : ''}`)
    .join('\n');
}
