// Check run texts are cut to GitHub's limit in bytes, at a character boundary.
import { describe, expect, it } from 'vitest';
import { checkTextBytes, fitCheckText, fitComment, MAX_CHECK_TEXT_BYTES } from '../../src/hosts/github/limits.ts';

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

describe('fitComment', () => {
  const marker = '\n<!-- baton:questions r1/ask/1 -->';

  it('keeps a body that fits whole, marker included', () => {
    expect(fitComment('short', marker)).toBe(`short${marker}`);
    const exact = 'x'.repeat(65_536 - marker.length);
    expect(fitComment(exact, marker)).toBe(exact + marker);
  });

  it('cuts the text of a longer body to 65,536 characters, says so, and keeps the marker whole', () => {
    for (const text of ['x'.repeat(70_000), 'a' + '🚀'.repeat(40_000)]) {
      const body = fitComment(text, marker);
      expect(body.length).toBeLessThanOrEqual(65_536);
      expect(body.endsWith(`(cut to GitHub's limit of 65536 characters for a comment)${marker}`)).toBe(true);
      expect(Buffer.from(body, 'utf8').toString('utf8')).toBe(body);
    }
  });
});
