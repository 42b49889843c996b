// Which paths of a worker result are protected (they steer later workflows and agents) and
// which symlink targets leave the repository: matched the way case-insensitive file systems
// and git itself would take the names.
import { describe, expect, it } from 'vitest';
import { protectedPathKind } from '../../src/agents/protected-paths.ts';
import { symlinkProblem } from '../../src/agents/symlink-target.ts';
import { refusedChanges } from '../../src/hosts/github/apply.ts';
import type { ResultBundle } from '../../src/agents/result.ts';

describe('protected paths', () => {
  it.each([
    ['.github/workflows/ci.yml', 'a GitHub Actions workflow'],
    ['.GitHub/Workflows/ci.yml', 'a GitHub Actions workflow'],
    ['.github/actions/setup/action.yml', 'a local action run by workflows'],
    ['.agents/workflows/fix.yml', "baton's manifests"],
    ['.agents./workflows/fix.yml', "baton's manifests"],
    ['CLAUDE.md', 'agent configuration'],
    ['claude.md', 'agent configuration'],
    ['packages/api/AGENTS.md', 'agent configuration'],
    ['GEMINI.md', 'agent configuration'],
    ['.mcp.json', 'agent configuration'],
    ['.claude/settings.json', 'agent configuration'],
    ['.cl\u200caude/settings.json', 'agent configuration'],
    ['sub/.codex/config.toml', 'agent configuration'],
    ['.gemini/settings.json', 'agent configuration'],
    ['.cursor/rules/x.mdc', 'agent configuration'],
    ['.github/copilot-instructions.md', 'agent configuration'],
  ])('%s is %s', (path, what) => {
    expect(protectedPathKind(path)).toBe(what);
  });

  it.each(['src/claude.ts', 'docs/CLAUDE.md.bak', '.github/workflowsx/a', 'github/workflows/ci.yml', 'docs/agents/notes.md', 'README.md'])('%s is not protected', (path) => {
    expect(protectedPathKind(path)).toBeUndefined();
  });
});

describe('symlink targets', () => {
  it.each([
    ['env.txt', '/proc/self/environ', 'its target is an absolute path'],
    ['env.txt', '~/.ssh/id_rsa', 'its target is an absolute path'],
    ['env.txt', 'C:/Windows', 'its target is an absolute path'],
    ['a/b.txt', '../../outside', 'its target is outside the repository'],
    ['a/b.txt', '../.git/config', "its target goes through git's own directory"],
    ['a/b.txt', '../.GIT./hooks', "its target goes through git's own directory"],
    ['b.txt', '', 'its target is empty or holds control characters'],
  ])('%s → %s is refused', (path, target, why) => {
    expect(symlinkProblem(path, target)).toBe(why);
  });

  it.each([['a/b.txt', '../c.txt'], ['b.txt', 'docs/x.md'], ['a/b/c', '../../d']])('%s → %s stays inside', (path, target) => {
    expect(symlinkProblem(path, target)).toBeUndefined();
  });

  it('a symlink inside the repository that points to a protected path is a protected change', () => {
    const bundle = {
      result: { changes: [{ path: 'docs/notes.md', status: 'added', mode: '120000' }] },
      files: new Map([['docs/notes.md', Buffer.from('../CLAUDE.md')]]),
      transcript: '',
    } as unknown as ResultBundle;
    expect(refusedChanges(bundle, false)).toContain('docs/notes.md → ../CLAUDE.md (a symlink to agent configuration)');
    expect(refusedChanges(bundle, true)).toBeUndefined();
  });
});
