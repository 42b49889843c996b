// The npm name `baton` belongs to an unrelated package: a doc that tells a user `npx baton …`
// outside baton's own clone, or an MCP snippet that starts `npx baton mcp`, fetches that
// package instead ("connection closed" in the MCP client). Every user-facing command names
// the scoped package; `npx baton` is allowed only where the text is about a clone of baton.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../../src/names.ts';

const root = join(import.meta.dirname, '..', '..');
const docs = ['README.md', 'workflows-library/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };

describe('package name in the docs', () => {
  it.each(docs)('%s: no `npx baton` for users (only about a clone of baton)', (file) => {
    const bad = read(file)
      .split('\n')
      .map((line, i) => ({ line, n: i + 1 }))
      .filter(({ line }) => /npx (-y )?baton\b/.test(line) && !/clone|own tests|npm ci && npx baton/.test(line));
    expect(bad.map(({ n, line }) => `${file}:${n}: ${line.trim()}`)).toEqual([]);
  });

  // An MCP server starts with every session and holds the user's token: an unversioned
  // `npx -y` runs whatever was published last with it. The version is package.json's, so a
  // release that forgets to move the snippets fails here.
  it('every MCP client snippet starts the scoped package, at the version of package.json, with npx -y', () => {
    const readme = read('README.md');
    const json = [...readme.matchAll(/"args":\s*\[([^\]]*)\]/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim());
    const toml = [...readme.matchAll(/^args = \[([^\]]*)\]/gm)].map((m) => m[1]!.trim());
    const cli = [...readme.matchAll(/claude mcp add baton -- (.*?)`/g)].map((m) => m[1]!);
    expect(json.length).toBeGreaterThanOrEqual(3); // Claude Code, Cursor, VS Code
    expect(toml.length).toBeGreaterThanOrEqual(1); // Codex
    const spec = `${PACKAGE_NAME}@${version}`;
    for (const args of [...json, ...toml]) expect(args, `README.md: move the MCP snippets to ${spec}`).toBe(`"-y", "${spec}", "mcp"`);
    expect(cli).toEqual([`npx -y ${spec} mcp`]);
  });
});
