// What each shipped bundle pulls in, from esbuild's metafile: the CLI (and the MCP server it
// serves) must start without Probot, and the App keeps Probot as an installed dependency.
import { mkdtempSync, rmSync } from 'node:fs';
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

  it('the CLI imports nothing at run time but Node itself', () => {
    const imports = Object.values(metafiles.cli.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    expect(imports.filter((p) => !p.startsWith('node:') && !/^[a-z_]+$/.test(p))).toEqual([]);
  });

  it('the App leaves Probot to be installed, not bundled', () => {
    expect(bundledPackages(metafiles.app).has('probot')).toBe(false);
    const imports = new Set(Object.values(metafiles.app.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)));
    expect(imports.has('probot')).toBe(true);
  });
});
