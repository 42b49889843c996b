import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, loadSchema, renderManifestDocs } from '../../scripts/manifest-docs.ts';

describe('docs/manifest.md', () => {
  it('matches the schema (run `npx tsx scripts/manifest-docs.ts` after changing the schema)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderManifestDocs(loadSchema()));
  });

  it('documents every step kind and every common step key', () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    for (const kind of ['ask', 'review', 'checks', 'approve', 'pull-request']) expect(doc).toContain(`## \`steps[].${kind}\``);
    for (const key of ['needs', 'if', 'retries', 'timeout-minutes', 'for-each', 'max-parallel', 'writes', 'env']) expect(doc).toContain(`| \`${key}\` |`);
  });
});
