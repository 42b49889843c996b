// Check run texts are cut to GitHub's limit in bytes, at a character boundary.
import { describe, expect, it } from 'vitest';
import { checkTextBytes, fitCheckText, MAX_CHECK_TEXT_BYTES } from '../../src/hosts/github/limits.ts';

describe('fitCheckText', () => {
  it('keeps a text that fits whole, up to the last byte', () => {
    const exact = '漢'.repeat(MAX_CHECK_TEXT_BYTES / 3);
    expect(checkTextBytes(exact)).toBe(MAX_CHECK_TEXT_BYTES);
    expect(fitCheckText(exact)).toBe(exact);
  });

  it.each<[string, string]>([
    ['CJK (3 bytes each)', '漢'.repeat(30_000)],
    // Emoji after 0–3 ASCII letters: one of them puts a surrogate pair across the cut.
    ...[0, 1, 2, 3].map((pad) => [`emoji (surrogate pairs, 4 bytes each) after ${pad} letters`, 'a'.repeat(pad) + '🚀'.repeat(20_000)] as [string, string]),
    ['typographic quotes among ASCII', '“quoted” text '.repeat(6_000)],
  ])('cuts %s under the limit in bytes, says so, and leaves no broken character', (_, text) => {
    expect(text.length).toBeLessThan(MAX_CHECK_TEXT_BYTES * 2);
    const fitted = fitCheckText(text);
    expect(checkTextBytes(fitted)).toBeLessThanOrEqual(MAX_CHECK_TEXT_BYTES);
    expect(checkTextBytes(fitted)).toBeGreaterThan(MAX_CHECK_TEXT_BYTES - 200);
    expect(fitted).toMatch(/cut to GitHub's limit of 65535 bytes/);
    expect(Buffer.from(fitted, 'utf8').toString('utf8')).toBe(fitted); // no lone surrogate
    expect(text.startsWith(fitted.slice(0, fitted.indexOf('\n\n…')))).toBe(true);
  });
});
