// The Node.js versions the docs ask for are the ones package.json's `engines` accepts: npm
// refuses the others (20.18.0, 21), so "20.18 or later" sends a reader into an error.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENGINES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'workflows-library/README.md'];
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8').replace(/\s*\n\s*/g, ' ');

/** "Node.js 20.18 or later", "Node 20+", "Node.js v22 and newer": a minimum written by hand. */
const HAND_WRITTEN_MINIMUM = /\bNode(?:\.js)?\s+v?\d+(?:\.\d+)*(?:\+|\s+(?:or|and)\s+(?:later|newer|above|higher))/gi;
/** "Node.js `<range>`" (also "Node.js: `engines` says `<range>`"): a range quoted from somewhere. */
const QUOTED_RANGE = /\bNode(?:\.js)?\b[^`\n]{0,40}`([~^<>=]*\d[^`]*)`/g;

describe('the Node.js version the docs ask for', () => {
  it('is never a minimum written by hand', () => {
    const found = FILES.flatMap((f) => [...read(f).matchAll(HAND_WRITTEN_MINIMUM)].map((m) => `${f}: "${m[0]}"`));
    expect(found, `write the range of package.json's engines instead: \`${ENGINES}\``).toEqual([]);
  });

  it("is package.json's engines range wherever a range is quoted", () => {
    const ranges = FILES.flatMap((f) => [...read(f).matchAll(QUOTED_RANGE)].map((m) => ({ f, range: m[1]! })));
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.filter((r) => r.range !== ENGINES).map((r) => `${r.f}: ${r.range}`)).toEqual([]);
  });

  it("is said where a newcomer starts: the README's set-up and App sections", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const heading of ['## Set up', '## Install as a GitHub App']) {
      const start = readme.indexOf(`\n${heading}\n`);
      expect(start, heading).toBeGreaterThan(-1);
      const section = readme.slice(start + 1, readme.indexOf('\n## ', start + 1)).replace(/\s*\n\s*/g, ' ');
      expect(section.includes(`Node.js \`${ENGINES}\``), `${heading} says Node.js \`${ENGINES}\``).toBe(true);
    }
  });
});
