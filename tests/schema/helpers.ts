// Loads the manifest schema the way baton does (Ajv 2020-12, strict, all errors) and
// reads the library workflows.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const schemaFile = join(root, 'schema', 'workflow.schema.json');
export const libraryDir = join(root, 'workflows-library');

export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true } as const;

export function loadSchema(): Record<string, any> {
  return JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, any>;
}

export function compileSchema(): ValidateFunction {
  const ajv = new Ajv2020(AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv.compile(loadSchema());
}

export function libraryFiles(): string[] {
  return readdirSync(libraryDir)
    .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
    .sort();
}

export function readLibrary(file: string): { text: string; doc: any } {
  const text = readFileSync(join(libraryDir, file), 'utf8');
  return { text, doc: parse(text) };
}

export type Found = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params' | 'message'>;

export function errorsOf(validate: ValidateFunction, doc: unknown): Found[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map(({ instancePath, keyword, params, message }) => ({
    instancePath,
    keyword,
    params,
    message,
  }));
}
