// The release stamps the commit of its tag into action-pin.json, and an installed baton pins
// its own Action to that commit: `baton-dev/baton@<sha> # vX.Y.Z`, which no later move of `v1` changes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stampPin } from '../../scripts/release/stamp-pin.ts';
import { planInit } from '../../src/init/plan.ts';
import { libraryWorkflows } from '../../src/init/library.ts';
import { batonAction, readReleasePin, RELEASE_PIN_FILE } from '../../src/release-pin.ts';
import { ACTION_REF } from '../../src/names.ts';
import { GIT_ENV } from '../local/helpers.ts';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tagged(tag: string): { dir: string; git: (...args: string[]) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-stamp-'));
  temps.push(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), 'baton\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'release');
  // Annotated, as `npm version` makes them: the pin is the commit, not the tag object.
  git('tag', '-a', tag, '-m', tag);
  return { dir, git };
}

describe('stamping the Action pin at release', () => {
  it('writes the commit the tag points at; init then pins baton\'s Action to it with the version comment', () => {
    const { dir, git } = tagged('v1.4.2');
    const pin = stampPin(dir, 'v1.4.2');
    const commit = git('rev-parse', 'HEAD');
    expect(pin).toEqual({ repo: 'baton-dev/baton', version: 'v1.4.2', commit });
    expect(git('rev-parse', 'v1.4.2')).not.toBe(commit); // the tag object, which `uses:` does not take
    expect(readReleasePin(join(dir, RELEASE_PIN_FILE))).toEqual(pin);

    const action = batonAction(readReleasePin(join(dir, RELEASE_PIN_FILE)));
    const library = libraryWorkflows();
    const plan = planInit({ mode: 'actions', workflows: library.filter((w) => w.name === 'fix-issue'), actionRef: action.ref, actionVersion: action.version!, appToken: false });
    for (const f of plan.files.filter((f) => f.path.startsWith('.github/'))) {
      const lines = f.text.split('\n').filter((l) => l.includes('baton-dev/baton'));
      expect(lines.length, f.path).toBeGreaterThan(0);
      for (const l of lines) expect(l.trim(), f.path).toMatch(new RegExp(`uses: baton-dev/baton@${commit} # v1\\.4\\.2$`));
    }
    // The editor's schema hint follows the pinned commit, too.
    expect(plan.files.find((f) => f.path === '.agents/workflows/fix-issue.yml')!.text).toContain(`https://raw.githubusercontent.com/baton-dev/baton/${commit}/schema/workflow.schema.json`);
  });

  it('refuses a tag that is not where the checkout is, or not a release tag', () => {
    const { dir, git } = tagged('v1.4.2');
    writeFileSync(join(dir, 'later.txt'), 'x\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'later');
    expect(() => stampPin(dir, 'v1.4.2')).toThrow(/v1\.4\.2 is [0-9a-f]{40}, but the checkout is at [0-9a-f]{40}/);
    expect(() => stampPin(dir, 'latest')).toThrow(/not a release tag/);
  });

  it('without a stamp (a checkout of baton) init falls back to the major tag; a damaged stamp is an error, never a silent tag', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-stamp-'));
    temps.push(dir);
    const file = join(dir, RELEASE_PIN_FILE);
    expect(readReleasePin(file)).toBeNull();
    expect(batonAction(null)).toEqual({ ref: ACTION_REF, pinned: false });
    writeFileSync(file, JSON.stringify({ repo: 'baton-dev/baton', version: 'v1.4.2', commit: 'abc123' }));
    expect(() => readReleasePin(file)).toThrow(/not one the release wrote/);
    writeFileSync(file, '{');
    expect(() => readReleasePin(file)).toThrow(/not valid JSON/);
  });
});
