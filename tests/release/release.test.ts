// The release path, as far as this machine allows: the workflow's steps in an order that
// publishes nothing untested, the tag checked against package.json, notes from the CHANGELOG,
// the major tag the Action is used by moved only forward, and the publish step itself run
// with --dry-run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_NAME } from '../../src/names.ts';
import { moveMajor } from '../../scripts/release/move-major.ts';
import { notesFor } from '../../scripts/release/notes.ts';
import { checkTag, packageVersion } from '../../scripts/release/version-tag.ts';

const root = join(import.meta.dirname, '..', '..');
const version = packageVersion(root);
const temps: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-release-'));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Step { name?: string; run?: string; uses?: string; with?: Record<string, unknown> }

describe('the release workflow', () => {
  const wf = parse(readFileSync(join(root, '.github/workflows/release.yml'), 'utf8')) as {
    on: { push: { tags: string[] } };
    permissions: Record<string, string>;
    jobs: { release: { steps: Step[] } };
  };
  const steps = wf.jobs.release.steps;
  const at = (needle: string) => {
    const i = steps.findIndex((s) => s.run?.includes(needle));
    expect(i, `a step runs ${needle}`).toBeGreaterThanOrEqual(0);
    return i;
  };

  it('runs on version tags, with the permissions provenance and the major tag need', () => {
    expect(wf.on.push.tags).toContain('v[0-9]+.[0-9]+.[0-9]+');
    expect(wf.permissions['id-token']).toBe('write');
    expect(wf.permissions.contents).toBe('write');
  });

  it('checks the tag, reads the notes, typechecks, tests and installs from a loopback registry before it publishes, and moves the major tag last', () => {
    const check = at('scripts/release/check-tag.ts');
    const notes = at('scripts/release/notes.ts');
    const test = at('npm test');
    const registry = at('npm run release:registry-check');
    const publish = at('scripts/release/publish.sh');
    const release = at('gh release create');
    const move = at('scripts/release/move-major.ts');
    expect(Math.max(check, notes, at('npm run typecheck'), at('npm run build'), test, registry)).toBeLessThan(publish);
    expect(publish).toBeLessThan(release);
    expect(release).toBeLessThan(move);
  });

  it('publishes on the Node.js the runners use, from the npm registry', () => {
    const node = steps.find((s) => s.uses?.startsWith('actions/setup-node'));
    expect(node?.with?.['node-version']).toBe(24);
    expect(node?.with?.['registry-url']).toBe('https://registry.npmjs.org');
  });
});

describe('release tags', () => {
  it('accepts the tag of the version in package.json and names the major tag', () => {
    expect(checkTag(`v${version}`, root)).toMatchObject({ version, major: `v${version.split('.')[0]}` });
  });

  it('refuses a tag that is not the package version, saying how to fix it', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/release/check-tag.ts', 'v9.9.9'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`release refused: tag v9.9.9 does not match package.json version ${version}`);
    expect(() => checkTag('1.2.0', root)).toThrow(/not a release tag/);
  });

  it('publishes a pre-release under the `next` dist-tag, a stable one under `latest`', () => {
    const d = temp();
    writeFileSync(join(d, 'package.json'), JSON.stringify({ version: '1.3.0-rc.1' }));
    const out = (tag: string) => spawnSync('npx', ['tsx', join(root, 'scripts/release/check-tag.ts'), tag], { cwd: root, encoding: 'utf8' });
    expect(out(`v${version}`).stdout).toContain('npm-tag=latest');
    expect(checkTag('v1.3.0-rc.1', d).prerelease).toBe(true);
  });
});

describe('release notes', () => {
  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');

  it('the version in package.json has its section in CHANGELOG.md', () => {
    expect(notesFor(changelog, version)).toMatch(/\S/);
  });

  it('a version without a section, or with an empty one, has no notes (and is not released)', () => {
    expect(notesFor(changelog, '99.0.0')).toBeNull();
    expect(notesFor('## [2.0.0]\n\n## [1.0.0]\n- a\n', '2.0.0')).toBeNull();
    expect(notesFor('## [2.0.0]\n- b\n## [1.0.0]\n- a\n', '2.0.0')).toBe('- b');
  });
});

describe('moving the major tag', () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  function repoWithRemote() {
    const remote = temp();
    git(remote, 'init', '--bare', '-q');
    const work = temp();
    git(work, 'init', '-q', '-b', 'main');
    git(work, 'remote', 'add', 'origin', remote);
    const commit = (tag: string) => {
      git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', tag);
      git(work, 'tag', tag);
      return git(work, 'rev-parse', 'HEAD');
    };
    const remoteTag = (t: string) => spawnSync('git', ['rev-parse', '--verify', '-q', `refs/tags/${t}`], { cwd: remote, encoding: 'utf8' }).stdout.trim() || null;
    return { work, commit, remoteTag };
  }

  it('moves v1 to a newer stable release and pushes it', () => {
    const r = repoWithRemote();
    r.commit('v1.0.0');
    expect(moveMajor(r.work, 'v1.0.0')).toMatch(/^v1 moved to v1.0.0/);
    const c = r.commit('v1.1.0');
    moveMajor(r.work, 'v1.1.0');
    expect(r.remoteTag('v1')).toBe(c);
  });

  it('leaves v1 on the newest release for a patch of an older minor, a pre-release, or another major', () => {
    const r = repoWithRemote();
    r.commit('v1.0.0');
    const newest = r.commit('v1.1.0');
    moveMajor(r.work, 'v1.1.0');
    r.commit('v1.0.1');
    expect(moveMajor(r.work, 'v1.0.1')).toBe('v1.1.0 is newer than v1.0.1: v1 stays on the newest release');
    r.commit('v1.2.0-rc.1');
    expect(moveMajor(r.work, 'v1.2.0-rc.1')).toMatch(/pre-release: v1 stays/);
    const two = r.commit('v2.0.0');
    moveMajor(r.work, 'v2.0.0');
    expect(r.remoteTag('v1')).toBe(newest);
    expect(r.remoteTag('v2')).toBe(two);
  });
});

describe('the publish step', () => {
  it('publishes this package with provenance (run here with --dry-run)', () => {
    const r = spawnSync(join(root, 'scripts/release/publish.sh'), ['--tag', 'latest', '--dry-run'], {
      cwd: root,
      encoding: 'utf8',
      // No token here: npm's dry run says it would need one and goes on.
      env: { ...process.env, NODE_AUTH_TOKEN: '' },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain(`+ ${PACKAGE_NAME}@${version}`);
    expect(out).toMatch(/with tag latest and public access \(dry-run\)/);
    expect(out).toContain('action.yml');
    expect(out).not.toMatch(/\btests\//);
  }, 120_000);
});
