// GitHub's filter patterns, checked against the examples of the workflow syntax reference's
// "Filter pattern cheat sheet" (each row: the pattern, what it must match, what it must not).
import { describe, expect, it } from 'vitest';
import { anyPathMatches, filterPatternErrors, matchesFilters } from '../../src/manifest/filter-patterns.ts';

const m = (patterns: string | string[], name: string) => matchesFilters(Array.isArray(patterns) ? patterns : [patterns], name);

describe('filter patterns: branches and tags (cheat sheet)', () => {
  it.each([
    ['feature/*', ['feature/my-branch', 'feature/your-branch'], ['feature/beta-a/my-branch', 'feature']],
    ['feature/**', ['feature/beta-a/my-branch', 'feature/your-branch', 'feature/mona/the/octocat'], ['features/x']],
    ['main', ['main'], ['main2', 'xmain']],
    ['releases/mona-the-octocat', ['releases/mona-the-octocat'], ['releases/mona']],
    ['*', ['main', 'releases'], ['all/the/branches']],
    ['**', ['all/the/branches', 'every/tag'], []],
    ['*feature', ['mona-feature', 'feature', 'ver-10-feature'], ['a/feature']],
    ['v2*', ['v2', 'v2.0', 'v2.9'], ['v3', 'v2/x']],
    ['v[12].[0-9]+.[0-9]+', ['v1.10.1', 'v2.0.0'], ['v3.0.0', 'v1.x.1', 'v1-1.1']],
    // The cheat sheet once read "`?` matches one single character"; it now reads "zero or one of the
    // preceding character" (its `*.jsx?` example): baton follows the current text.
    ['Octoc?at', ['Octocat', 'Octoat'], ['Octoccat', 'Octobat']],
    ['[CB]at', ['Cat', 'Bat'], ['Hat']],
    ['[1-2]00', ['100', '200'], ['300']],
  ])('%s', (pattern, yes, no) => {
    for (const name of yes) expect(m(pattern, name), `${pattern} ~ ${name}`).toBe(true);
    for (const name of no) expect(m(pattern, name), `${pattern} !~ ${name}`).toBe(false);
  });
});

describe('filter patterns: file paths (cheat sheet)', () => {
  it.each([
    ['*', ['README.md', 'server.rb'], ['docs/README.md']],
    ['*.jsx?', ['page.js', 'page.jsx'], ['page.jsxx', 'src/page.js']],
    ['**', ['all/the/files.md'], []],
    ['*.js', ['app.js', 'index.js'], ['js/index.js']],
    ['**.js', ['index.js', 'js/index.js', 'src/js/app.js'], ['index.ts']],
    ['docs/*', ['docs/README.md', 'docs/file.txt'], ['docs/mona/octocat.txt']],
    ['docs/**', ['docs/README.md', 'docs/mona/octocat.txt'], ['src/docs/a']],
    ['docs/**/*.md', ['docs/README.md', 'docs/mona/hello-world.md', 'docs/a/markdown/file.md'], ['docs/a.txt']],
    ['**/docs/**', ['docs/hello.md', 'dir/docs/my-file.txt', 'space/docs/plan/space.doc'], ['mydocs/x']],
    ['**/README.md', ['README.md', 'js/README.md'], ['README.mdx']],
    ['**/*src/**', ['a/src/app.js', 'my-src/code/js/app.js'], ['src.js']],
    ['**/*-post.md', ['my-post.md', 'path/their-post.md'], ['post.md']],
    ['**/migrate-*.sql', ['migrate-10909.sql', 'db/migrate-v1.0.sql', 'db/sept/migrate-v1.sql'], ['migrate.sql']],
  ])('%s', (pattern, yes, no) => {
    for (const name of yes) expect(m(pattern, name), `${pattern} ~ ${name}`).toBe(true);
    for (const name of no) expect(m(pattern, name), `${pattern} !~ ${name}`).toBe(false);
  });

  it('a later `!` excludes what an earlier pattern included', () => {
    const p = ['*.md', '!README.md'];
    expect(m(p, 'hello.md')).toBe(true);
    expect(m(p, 'README.md')).toBe(false);
    expect(m(p, 'docs/hello.md')).toBe(false);
  });

  it('a later positive pattern includes again what a `!` excluded (patterns are checked in order)', () => {
    const p = ['*.md', '!README.md', 'README*'];
    expect(m(p, 'hello.md')).toBe(true);
    expect(m(p, 'README.md')).toBe(true);
    expect(m(p, 'README.doc')).toBe(true);
  });

  it('a `\\` makes a special character literal', () => {
    expect(m('release\\*', 'release*')).toBe(true);
    expect(m('release\\*', 'release1')).toBe(false);
  });

  it('no patterns: everything; any changed file included runs the workflow', () => {
    expect(m([], 'anything/at/all')).toBe(true);
    expect(anyPathMatches(['docs/**'], ['src/a.ts', 'docs/b.md'])).toBe(true);
    expect(anyPathMatches(['docs/**'], ['src/a.ts'])).toBe(false);
    expect(anyPathMatches(['docs/**'], [])).toBe(false);
  });
});

describe('filter patterns: what GitHub does not read', () => {
  it('only `!` patterns never include anything, and are refused', () => {
    expect(m(['!main'], 'dev')).toBe(false);
    expect(filterPatternErrors(['!main', '!dev']).map((e) => e.message)).toEqual([expect.stringContaining('every pattern starts with `!`')]);
    expect(filterPatternErrors(['**', '!main'])).toEqual([]);
  });

  it.each([
    ['[a-z', 'never closed'],
    ['[]x', 'lists no character'],
    ['[a-Z]', 'not within a-z, A-Z or 0-9'],
    ['?abc', 'follows no character'],
    ['a*+', 'follows no character'],
    ['', 'empty'],
    ['!', 'negates nothing'],
    ['abc\\', 'escapes nothing'],
  ])('%j is refused (%s)', (pattern, why) => {
    const errors = filterPatternErrors(['**', pattern]);
    expect(errors).toEqual([{ index: 1, message: expect.stringContaining(why) }]);
  });
});
