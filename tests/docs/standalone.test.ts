// The docs stand alone: a reader who has only this repository can follow every reference.
// No markdown file may cite a document that is not in the repository (an outside design
// document, field notes, a prior-art survey) or a path on someone's machine, and every
// relative link of the user-facing docs must lead to a file (and heading) that exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every markdown file of the repository, outside dependencies and git's own folder. */
function markdownFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === '.git') continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue; // a dangling symlink
    if (stat.isDirectory()) out.push(...markdownFiles(path));
    else if (name.endsWith('.md')) out.push(relative(ROOT, path));
  }
  return out.sort();
}

/** Documents that were never part of the repository: citing them leaves the reader stuck. */
const OUTSIDE_DOCUMENTS: Array<[string, RegExp]> = [
  ['the design document', /\bDESIGN(?:\.md\b|\s*§|'s\b)/],
  ['field notes', /FIELD-NOTES/],
  ['the prior-art survey', /PRIOR-ART/],
];

/**
 * Absolute paths a doc may name: system locations an agent or a runner sees, GitHub REST
 * paths and its web pages (`/settings/apps/new`), the placeholder `/abs/`, and the home of GitHub's hosted runner. Any other
 * absolute path is somebody's machine.
 */
const SYSTEM_ROOTS = new Set(['bin', 'dev', 'etc', 'lib', 'opt', 'proc', 'run', 'sys', 'tmp', 'usr', 'var', 'api', 'app', 'app-manifests', 'installation', 'repos', 'git', 'orgs', 'users', 'settings', 'organizations', 'abs']);
const ABSOLUTE_PATH = /(?<=^|[\s`("'=[])\/([A-Za-z][\w.-]*)\/([\w.-]*)/g;

export function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [what, pattern] of OUTSIDE_DOCUMENTS) if (pattern.test(line)) found.push(`line ${i + 1}: cites ${what}: ${line.trim()}`);
    for (const m of line.matchAll(ABSOLUTE_PATH)) {
      const [, first, second] = m;
      if (SYSTEM_ROOTS.has(first!) || (first === 'home' && second === 'runner')) continue;
      found.push(`line ${i + 1}: names a path outside the repository: ${m[0]}`);
    }
    if (/\bfile:\/\//.test(line)) found.push(`line ${i + 1}: links a file outside the repository: ${line.trim()}`);
  });
  return found;
}

/** The text outside fenced code blocks (and, unless kept, inline code): what renders as prose and links. */
function prose(text: string, { keepInlineCode = false } = {}): string {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) fence = open[1]!;
    else if (fence !== null && open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[1]) fence = null;
    else if (fence === null) {
      lines.push(keepInlineCode ? line : line.replace(/`[^`]*`/g, ''));
      continue;
    }
    lines.push(''); // keep line numbers
  }
  return lines.join('\n');
}

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  // A heading's inline code is part of its anchor (`steps[].ask` → stepsask).
  for (const line of prose(readFileSync(file, 'utf8'), { keepInlineCode: true }).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links of a markdown file whose target (or heading) does not exist. */
export function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const text = readFileSync(join(ROOT, file), 'utf8');
  prose(text).split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (resolved !== ROOT.replace(/[\\/]$/, '') && !resolved.startsWith(ROOT.endsWith(sep) ? ROOT : ROOT + sep)) {
        broken.push(`line ${i + 1}: ${target} leads outside the repository`);
      } else if (!existsSync(resolved)) {
        broken.push(`line ${i + 1}: ${target}: no such file`);
      } else if (anchor && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor)) {
        broken.push(`line ${i + 1}: ${target}: no heading with that anchor`);
      }
    }
  });
  return broken;
}

describe('the docs stand alone', () => {
  const files = markdownFiles();

  it('finds the markdown files of the repository', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md');
    expect(files.some((f) => f.split(sep).includes('node_modules'))).toBe(false);
  });

  it.each(files)('%s cites no document and no path outside the repository', (file) => {
    expect(outsideReferences(readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });

  const linked = files.filter((f) => f === 'README.md' || (dirname(f) === 'docs' && f.endsWith('.md')));
  it.each(linked)('every relative link in %s leads to a file and heading that exist', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('catches each kind of outside reference, and lets system and API paths through', () => {
    const text = [
      'As DESIGN §4 says, and DESIGN.md, and DESIGN\'s gotcha.',
      'See FIELD-NOTES and PRIOR-ART.',
      'Built in /Users/someone/baton/, read /proc/self/environ and /etc/passwd, GET /repos/o/r.',
      'The runner starts /home/runner/run.sh; a key in file:///tmp/k.',
    ].join('\n');
    const found = outsideReferences(text);
    expect(found.filter((f) => f.startsWith('line 1:'))).toHaveLength(1);
    expect(found.filter((f) => f.startsWith('line 2:'))).toHaveLength(2);
    expect(found.filter((f) => f.startsWith('line 3:'))).toEqual(['line 3: names a path outside the repository: /Users/someone']);
    expect(found.filter((f) => f.startsWith('line 4:'))).toHaveLength(1);
  });

  it('reads links only outside code, and computes anchors as GitHub does', () => {
    expect(prose('a\n````markdown\n[x](gone.md)\n```mermaid\n```\n````\n[y](here.md) `[z](code.md)`')).toBe('a\n\n\n\n\n\n[y](here.md) ');
    expect(anchorOf('The GITHUB_TOKEN gotcha')).toBe('the-github_token-gotcha');
    expect(anchorOf("The status comment's trust rule")).toBe('the-status-comments-trust-rule');
    expect(anchorOf('Isolation: the agent reads, baton writes')).toBe('isolation-the-agent-reads-baton-writes');
  });
});
