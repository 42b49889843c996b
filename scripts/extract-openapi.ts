/**
 * Writes tests/emulator/openapi/subset.json: the operations the GitHub emulator serves
 * (tests/emulator/openapi/operations.ts), copied from GitHub's OpenAPI description as
 * published in @octokit/openapi, together with only the components they reference.
 * Descriptions and examples are dropped to keep the committed file small; everything that
 * validation needs stays.
 *
 *   npx tsx scripts/extract-openapi.ts           write the subset
 *   npx tsx scripts/extract-openapi.ts --check   fail (exit 1) when the committed subset is stale
 *
 * @octokit/openapi is ~385 MB unpacked, so it is not a devDependency: the script fetches
 * the pinned version's tarball (`npm pack`) into a temporary folder when run, and reads
 * only the description from it. Run it after adding an operation or bumping the pin; the
 * tests use the committed subset (tests/emulator/openapi.test.ts checks it is whole).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OPERATIONS } from '../tests/emulator/openapi/operations.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const SUBSET_PATH = fileURLToPath(new URL('../tests/emulator/openapi/subset.json', import.meta.url));

/** Documentation-only keywords: validation never reads them. */
const DROP = new Set(['description', 'example', 'examples', 'x-github', 'x-octokit', 'tags']);

/** The published description the committed subset is extracted from. */
export const SOURCE_PACKAGE = '@octokit/openapi@23.0.2';
const SOURCE_FILE = 'package/generated/api.github.com.json';

/** Fetches the pinned package's tarball and reads GitHub's description out of it. */
export function loadSourceSpec(): JsonObject {
  const dir = mkdtempSync(join(tmpdir(), 'baton-openapi-'));
  try {
    const packed = JSON.parse(execFileSync('npm', ['pack', SOURCE_PACKAGE, '--json', '--pack-destination', dir], { encoding: 'utf8' })) as { filename: string }[];
    execFileSync('tar', ['-xzf', join(dir, packed[0]!.filename), '-C', dir, SOURCE_FILE]);
    return JSON.parse(readFileSync(join(dir, SOURCE_FILE), 'utf8')) as JsonObject;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  if (process.argv.includes('--check')) {
    const fresh = readFileSync(SUBSET_PATH, 'utf8') === text;
    console.log(fresh ? `${SUBSET_PATH} is what ${SOURCE_PACKAGE} gives` : `${SUBSET_PATH} is stale: run \`npx tsx scripts/extract-openapi.ts\` and commit it`);
    process.exitCode = fresh ? 0 : 1;
  } else {
    writeFileSync(SUBSET_PATH, text);
    console.log(`wrote ${SUBSET_PATH} from ${SOURCE_PACKAGE} (${Math.round(text.length / 1024)} KiB, ${OPERATIONS.length} operations)`);
  }
}
