// The secret and key names the docs and the library workflows tell a user to set are the
// ones baton's code reads: a user who adds a secret from a doc must not add one nothing
// reads (codex reads CODEX_API_KEY, not OPENAI_API_KEY). The code is the source: the
// backends' credentials (src/agents/backends) and the secrets `baton init` wires into the
// workflows it writes (secretsOf, planInit).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKEND_IMPLS } from '../../src/agents/backends/index.ts';
import { libraryWorkflows } from '../../src/init/library.ts';
import { planInit } from '../../src/init/plan.ts';
import { secretsOf } from '../../src/init/workflows.ts';
import type { Backend } from '../../src/manifest/types.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Every doc and library workflow a user follows. */
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, 'workflows-library')).filter((f) => /\.(md|ya?ml)$/.test(f)).map((f) => `workflows-library/${f}`),
].sort();

const backends = Object.values(BACKEND_IMPLS);

/** Every key name a backend reads: its credentials, the alternatives its rules accept, and their companions. */
const READ_BY_A_BACKEND = new Set(backends.flatMap((b) => [...b.credentials, ...(b.alternativeCredentials ?? []), ...Object.values(b.credentialCompanions ?? {}).flat()]));

/** The repository secrets `baton init` ever wires into the workflows it writes: the backends' and its own. */
const INIT_SECRETS = new Set([
  ...secretsOf(Object.keys(BACKEND_IMPLS) as Backend[]),
  ...planInit({ mode: 'actions', workflows: libraryWorkflows(), actionRef: 'baton-dev/baton@v1', appToken: true }).secrets,
]);

/**
 * `${{ secrets.X }}` names that are not baton's, each with why a doc may show it.
 * A user's own secret in an example is the only kind.
 */
const OWN_SECRETS_IN_EXAMPLES: Record<string, string> = {
  DOCS_TOKEN: "docs/agents.md: a user's own MCP server's token, passed to the worker like the agents' keys",
};

/** Names a backend's CLI does not read though people set them for it (codex and OPENAI_API_KEY): a doc may warn about them. */
const NOT_READ = new Set(backends.flatMap((b) => Object.keys(b.notEnough ?? {})));
/** `does not read `OPENAI_API_KEY``: the warning, not a secret to add. */
const saysNotRead = (m: Mention): boolean => NOT_READ.has(m.name) && new RegExp(`\\bnot read\\W+${m.name}\\b`).test(m.statement);

const API_KEY = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_API_KEY\b/g;
// `secrets.X` as an expression reads it, not the end of a file name (`login-secrets.ts`).
const SECRETS_REF = /(?<![\w./-])secrets\.([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The text as units a reader takes as one statement: sentences, list items, and table rows
 * (a row is one statement: `| model API keys (…) | repository secrets … |`), also cut at `;`.
 * YAML comments are text too; their `#` is dropped.
 */
function statements(text: string): string[] {
  const prose = text.replace(/^[ \t]*#[ \t]?/gm, '');
  return prose
    .split(/\n[ \t]*\n|\n(?=[ \t]*(?:[-*] |\d+\. |\|))/)
    .flatMap((block) => block.replace(/\s*\n\s*/g, ' ').split(/(?<!\b(?:e\.g|i\.e|etc|vs)\.)(?<=[.!?;])\s+(?=[A-Z`*([])|;\s+/));
}

interface Mention {
  file: string;
  name: string;
  statement: string;
}

function mentions(re: RegExp, group = 0): Mention[] {
  return FILES.flatMap((file) =>
    statements(readFileSync(join(ROOT, file), 'utf8')).flatMap((statement) => [...statement.matchAll(re)].map((m) => ({ file, name: m[group]!, statement }))),
  );
}

const short = (s: string): string => (s.length > 160 ? `${s.slice(0, 160)}…` : s);

describe('secret and key names in the docs and the library', () => {
  it('every *_API_KEY named is one a backend reads (a credential, or an alternative it accepts)', () => {
    const unknown = mentions(API_KEY).filter((m) => !READ_BY_A_BACKEND.has(m.name));
    expect(unknown.map((m) => `${m.file}: ${m.name} in "${short(m.statement)}"`)).toEqual([]);
  });

  it('where a doc speaks of secrets, every *_API_KEY it names is one baton init passes as a secret', () => {
    const wrong = mentions(API_KEY).filter((m) => /\bsecrets?\b/i.test(m.statement) && !INIT_SECRETS.has(m.name) && !saysNotRead(m));
    expect(wrong.map((m) => `${m.file}: ${m.name} is no secret baton passes (${[...INIT_SECRETS].sort().join(', ')}), in "${short(m.statement)}"`)).toEqual([]);
  });

  it('every ${{ secrets.X }} is a secret baton init wires, or a user\'s own in an example', () => {
    const wrong = mentions(SECRETS_REF, 1).filter((m) => !INIT_SECRETS.has(m.name) && !(m.name in OWN_SECRETS_IN_EXAMPLES));
    expect(wrong.map((m) => `${m.file}: secrets.${m.name}`)).toEqual([]);
  });

  it("each library workflow's header names exactly the secrets baton init passes for its agents", () => {
    for (const w of libraryWorkflows()) {
      const header = w.text.split('\n').filter((l) => l.startsWith('#')).join('\n');
      const line = statements(header).find((s) => /^Secrets?:/.test(s.trim()));
      expect(line, `workflows-library/${w.name}.yml has no "Secrets:" line in its header`).toBeDefined();
      const named = line!.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [];
      const expected = secretsOf(w.backends);
      expect(named.sort(), `workflows-library/${w.name}.yml: "${line}"`).toEqual(expected);
      if (expected.length === 0) expect(line).toMatch(/^Secrets?: none\b/);
    }
  });
});
