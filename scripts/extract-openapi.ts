/**
 * Writes tests/emulator/openapi/subset.json: the operations the GitHub emulator serves
 * (tests/emulator/openapi/operations.ts), copied from @octokit/openapi together with
 * only the components they reference. Descriptions and examples are dropped to keep
 * the committed file small; everything that validation needs stays.
 *
 *   npx tsx scripts/extract-openapi.ts
 *
 * A test (tests/emulator/openapi.test.ts) re-runs the extraction in memory and fails
 * when the committed file differs, so the subset never drifts from its source.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OPERATIONS } from '../tests/emulator/openapi/operations.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const SUBSET_PATH = fileURLToPath(new URL('../tests/emulator/openapi/subset.json', import.meta.url));

/** Documentation-only keywords: validation never reads them. */
const DROP = new Set(['description', 'example', 'examples', 'x-github', 'x-octokit', 'tags']);

export function loadSourceSpec(): JsonObject {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
  return JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
}

/** Copies `node` without documentation keywords. Keys of a `properties` map are names, not keywords. */
function strip(node: Json, namesMap = false): Json {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesMap && DROP.has(key)) continue;
    out[key] = strip(value, !namesMap && key === 'properties');
  }
  return out;
}

function collectRefs(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, into);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') into.add(value);
      else collectRefs(value, into);
    }
  }
}

export function extractSubset(spec: JsonObject, operations: readonly string[] = OPERATIONS): JsonObject {
  const paths = spec.paths as Record<string, JsonObject>;
  const components = spec.components as Record<string, JsonObject>;
  const outPaths: Record<string, JsonObject> = {};
  const pending = new Set<string>();

  for (const entry of operations) {
    const [method, path] = entry.split(' ') as [string, string];
    const operation = paths[path]?.[method.toLowerCase()];
    if (operation === undefined) throw new Error(`${entry} is not in GitHub's OpenAPI description`);
    const stripped = strip(operation);
    collectRefs(stripped, pending);
    (outPaths[path] ??= {})[method.toLowerCase()] = stripped;
  }

  // Follow references transitively, each component copied once.
  const outComponents: Record<string, Record<string, Json>> = {};
  const done = new Set<string>();
  while (pending.size > 0) {
    const ref = pending.values().next().value as string;
    pending.delete(ref);
    if (done.has(ref)) continue;
    done.add(ref);
    const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
    if (match === null) throw new Error(`unsupported $ref ${ref}`);
    const [, kind, name] = match as unknown as [string, string, string];
    const target = components[kind]?.[name];
    if (target === undefined) throw new Error(`dangling $ref ${ref}`);
    const stripped = strip(target);
    collectRefs(stripped, pending);
    (outComponents[kind] ??= {})[name] = stripped;
  }

  const sortedComponents: JsonObject = {};
  for (const kind of Object.keys(outComponents).sort()) {
    const byName = outComponents[kind]!;
    sortedComponents[kind] = Object.fromEntries(Object.keys(byName).sort().map((name) => [name, byName[name]!]));
  }
  const info = spec.info as JsonObject;
  return {
    openapi: spec.openapi ?? '3.0.3',
    info: { title: 'GitHub REST API (subset served by the baton emulator)', version: info.version ?? '' },
    paths: outPaths,
    components: sortedComponents,
  };
}

export function renderSubset(spec: JsonObject = loadSourceSpec()): string {
  return `${JSON.stringify(extractSubset(spec), null, 1)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = renderSubset();
  writeFileSync(SUBSET_PATH, text);
  console.log(`wrote ${SUBSET_PATH} (${Math.round(text.length / 1024)} KiB, ${OPERATIONS.length} operations)`);
}
