// The threat model and the fidelity table name the tests that hold each defence and each
// GitHub rule. A renamed or deleted test would leave the doc claiming what no test shows: every
// `file › test name` they cite must name a test that exists in that file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `<file>.test.ts` › <name>, the file in backticks or not; the name up to a cell or list end.
 * Further names of the same file follow as `; › <name>` (or ` › <name>`): each is checked too.
 */
const REFERENCE = /`?((?:[\w.-]+\/)*[\w.-]+\.test\.ts)`?\s*›\s*([^|\n;›]+?(?:;?\s*›\s*[^|\n;›]+?)*)(?=\s*(?:\||;|\n|$|`[\w./-]+\.test\.ts`))/g;

interface Reference {
  file: string;
  name: string;
}

export function referencesIn(text: string, base: string): Reference[] {
  const out: Reference[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    const path = m[1]!.startsWith('tests/') ? m[1]! : join(base, m[1]!);
    // A name may be shortened with … or end in a parenthesised remark; a later › is a second test of the same file.
    for (const part of m[2]!.split(/;?\s*›\s*/)) {
      // A name may be quoted, and wrapped onto the next line (what is on the first line is its prefix).
      let name = part.replace(/\s*\([^)]*\)\s*$/, '').replace(/[.,]$/, '').trim();
      // A quoted name ends at its closing quote, whatever follows it.
      if (/^["“]/.test(name)) name = name.slice(1).split(/["”]/)[0]!;
      name = name.replace(/[,.]+$/, '').trim();
      if (name) out.push({ file: path, name });
    }
  }
  return out;
}

/** Whether `file` declares a test (or describe) whose title starts with the cited name. */
function declares(file: string, name: string): boolean {
  // Titles are written with escaped or typographic quotes; docs with either.
  const plain = (t: string) => t.replace(/\\(['"`])/g, '$1').replace(/[‘’]/g, "'");
  const prefix = plain(name.split('…')[0]!.trim());
  const source = plain(readFileSync(join(ROOT, file), 'utf8'));
  if (source.includes(prefix)) return true;
  // A title built from a constant (`at most ${LIMIT} times`) is cited with the constant's value.
  const pattern = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '(?:\\d+|\\$\\{[^}]+\\})');
  return new RegExp(pattern).test(source);
}

describe.each([
  ['docs/security.md', 'tests'],
  ['tests/emulator/FIDELITY.md', 'tests/emulator'],
])('%s', (doc, base) => {
  const refs = referencesIn(readFileSync(join(ROOT, doc), 'utf8'), base);

  it('names tests', () => {
    expect(refs.length).toBeGreaterThan(5);
  });

  it('names only tests that exist', () => {
    const missing = refs.filter((r) => !existsSync(join(ROOT, r.file)) || !declares(r.file, r.name)).map((r) => `${r.file} › ${r.name}`);
    expect(missing).toEqual([]);
  });
});
