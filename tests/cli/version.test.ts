// `baton --version` names the package and its version, from the one place names live.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { ACTION_REF, PACKAGE_NAME } from '../../src/names.ts';
import { batonAction } from '../../src/release-pin.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string; bin: Record<string, string> };

describe('baton --version', () => {
  it('prints the package name and the version of this copy, and exits 0', async () => {
    for (const flag of ['--version', '-V', 'version']) {
      const out: string[] = [];
      const code = await main([flag], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() });
      expect(code, flag).toBe(0);
      expect(out.join('\n')).toBe(`@baton-dev/baton ${pkg.version}`);
    }
  });

  it('takes its names from src/names.ts, which package.json and init agree with', () => {
    expect(pkg.name).toBe(PACKAGE_NAME);
    expect(Object.keys(pkg.bin)).toEqual(['baton']);
    // Without a release pin (a checkout of the repository), init falls back to the major tag.
    expect(batonAction(null).ref).toBe(ACTION_REF);
    expect(ACTION_REF).toBe('baton-dev/baton@v1');
  });
});
