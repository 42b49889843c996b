// What each shipped bundle pulls in, from esbuild's metafile: the CLI (and the MCP server it
// serves) must start without Probot, and no bundle needs a package installed beside it (the
// package has no runtime dependencies: the App carries Probot inside dist/app.js).
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Metafile } from 'esbuild';
import { buildAll, bundledPackages, type BundleName } from '../../scripts/build.ts';

let out: string;
let metafiles: Record<BundleName, Metafile>;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'baton-bundles-'));
  metafiles = await buildAll(out, { types: false });
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the shipped bundles', () => {
  it('the CLI and its MCP server hold no Probot', () => {
    const cli = bundledPackages(metafiles.cli);
    expect(cli.has('@modelcontextprotocol/sdk'), 'the MCP server is part of the CLI').toBe(true);
    expect([...cli].filter((p) => /probot|pino/.test(p))).toEqual([]);
  });

  it.each(['action', 'cli', 'app', 'lib'] as const)('%s imports nothing at run time but Node itself', (name) => {
    const imports = Object.values(metafiles[name].outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    // Node's built-ins, as `node:fs` or as the bare names CommonJS dependencies use (`fs`, `string_decoder`).
    expect(imports.filter((p) => !p.startsWith('node:') && !builtinModules.includes(p))).toEqual([]);
  });

  it('the App carries Probot', () => {
    expect(bundledPackages(metafiles.app).has('probot')).toBe(true);
  });

  it("the App carries Probot's Redis client (REDIS_URL) and not the loader that would fetch it at run time", () => {
    const app = bundledPackages(metafiles.app);
    expect(app.has('ioredis')).toBe(true);
    expect(app.has('npx-import-light')).toBe(false);
  });
});
