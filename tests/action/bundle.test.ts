// dist/action.js is committed; it must be what `npm run build` makes of the sources now.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleText, OUTFILE, ROOT } from '../../scripts/build.ts';

describe('the committed Action bundle', () => {
  it('is up to date with the sources (run `npm run build` and commit dist/ if not)', async () => {
    const fresh = await bundleText();
    const committed = readFileSync(join(ROOT, OUTFILE), 'utf8');
    // toBe on a megabyte prints a useless diff: compare, then say what to do.
    expect(committed === fresh, 'dist/action.js is stale: run `npm run build` and commit dist/').toBe(true);
  }, 60_000);

  it('is deterministic', async () => {
    expect(await bundleText()).toBe(await bundleText());
  }, 60_000);

  it('stays under 3 MB and holds no path of the machine that built it', () => {
    expect(statSync(join(ROOT, OUTFILE)).size).toBeLessThan(3 * 1024 * 1024);
    const text = readFileSync(join(ROOT, OUTFILE), 'utf8');
    expect(text.includes(ROOT.replace(/\/$/, ''))).toBe(false);
  });
});
