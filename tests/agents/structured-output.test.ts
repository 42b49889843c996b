// Native structured output where the CLI has it: claude's --json-schema for any schema, codex's
// --output-schema only for schemas OpenAI's strict mode takes as they are (else the API refuses
// the whole turn); every other schema stays with the prompt and baton's own validation.
import { describe, expect, it } from 'vitest';
import { backendFor } from '../../src/agents/backends/index.ts';
import { fitsStrictMode } from '../../src/agents/backends/strict-schema.ts';
import type { AgentSpec } from '../../src/manifest/types.ts';

const spec: AgentSpec = { uses: 'codex', env: {} };
const strict = {
  type: 'object',
  additionalProperties: false,
  required: ['plan', 'files'],
  properties: {
    plan: { type: 'string' },
    files: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['path'], properties: { path: { type: 'string' } } } },
  },
};

describe('codex --output-schema', () => {
  it('hands a strict-mode schema to codex in a file outside the checkout', () => {
    const inv = backendFor('codex').invocation(spec, 'P', { tmpDir: '/tmp/w', writes: true, outputsSchema: strict });
    const at = inv.argv.indexOf('--output-schema');
    expect(at).toBeGreaterThan(0);
    expect(inv.argv[at + 1]).toBe('/tmp/w/codex-output-schema.json');
    expect(JSON.parse(inv.files!['/tmp/w/codex-output-schema.json']!)).toEqual(strict);
    expect(inv.argv.at(-1)).toBe('-');
  });

  it('leaves schemas strict mode would refuse, and steps without outputs, to the prompt', () => {
    const loose = { type: 'object', required: ['plan'], properties: { plan: { type: 'string' }, note: { type: 'string' } } };
    for (const outputsSchema of [null, undefined, loose]) {
      const inv = backendFor('codex').invocation(spec, 'P', { tmpDir: '/tmp/w', writes: true, outputsSchema });
      expect(inv.argv).not.toContain('--output-schema');
      expect(inv.files ?? {}).toEqual({});
    }
  });
});

describe('which schemas fit strict mode', () => {
  it('needs an object root, additionalProperties false and every property required, all the way down', () => {
    expect(fitsStrictMode(strict)).toBe(true);
    expect(fitsStrictMode({ ...strict, additionalProperties: true })).toBe(false);
    expect(fitsStrictMode({ ...strict, required: ['plan'] })).toBe(false);
    const nestedLoose = structuredClone(strict);
    delete (nestedLoose.properties.files.items as { additionalProperties?: boolean }).additionalProperties;
    expect(fitsStrictMode(nestedLoose)).toBe(false);
    expect(fitsStrictMode({ type: 'array', items: { type: 'string' } })).toBe(false);
    expect(fitsStrictMode(['not', 'a', 'schema'])).toBe(false);
  });

  it('refuses keywords outside the subset (oneOf, patternProperties, if/then) rather than guess', () => {
    expect(fitsStrictMode({ ...strict, properties: { ...strict.properties, plan: { oneOf: [{ type: 'string' }, { type: 'null' }] } } })).toBe(false);
    expect(fitsStrictMode({ ...strict, patternProperties: {} })).toBe(false);
    expect(fitsStrictMode({ ...strict, properties: { ...strict.properties, plan: { anyOf: [{ type: 'string' }, { type: 'null' }] } } })).toBe(true);
  });
});
