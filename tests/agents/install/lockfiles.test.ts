// The lockfiles baton ships for the agent CLIs, and the check every install passes first:
// a lockfile that would let npm install something unchecked is refused, saying what and where.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLockfile, lockRoot, npmCliLock, npmCliLocks } from '../../../src/agents/install/lockfiles.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** claude-code's shipped lockfile, copied, with `change` applied to its parsed JSON. */
function tampered(change: (lock: any, manifest: any) => void) {
  const root = mkdtempSync(join(tmpdir(), 'baton-locks-'));
  dirs.push(root);
  cpSync(join(lockRoot(), 'claude-code'), join(root, 'claude-code'), { recursive: true });
  const dir = join(root, 'claude-code');
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  change(lock, manifest);
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  return npmCliLock('claude-code', root);
}

const LINUX = 'node_modules/@anthropic-ai/claude-code-linux-x64';

describe("baton's agent CLI lockfiles", () => {
  for (const lock of npmCliLocks()) {
    it(`${lock.backend.name}: locks ${lock.pkg} at the pinned version, every package hashed and from the registry`, () => {
      expect(() => checkLockfile(lock)).not.toThrow();
    });
  }

  it('refuses an entry without a sha512 hash, naming it', () => {
    const lock = tampered((l) => delete l.packages[LINUX].integrity);
    expect(() => checkLockfile(lock)).toThrow("baton's lockfile for claude-code (agent-clis/claude-code/package-lock.json): @anthropic-ai/claude-code-linux-x64@2.1.332 has no sha512 integrity hash");
  });

  it('refuses an entry from anywhere but the registry (a file: tarball, a git URL)', () => {
    const lock = tampered((l) => (l.packages[LINUX].resolved = 'file:../evil.tgz'));
    expect(() => checkLockfile(lock)).toThrow('@anthropic-ai/claude-code-linux-x64@2.1.332 does not come from https://registry.npmjs.org/ (resolved: "file:../evil.tgz")');
  });

  it('refuses a lockfile of another version than the one baton pins', () => {
    const lock = tampered((l) => (l.packages['node_modules/@anthropic-ai/claude-code'].version = '2.1.331'));
    expect(() => checkLockfile(lock)).toThrow('has @anthropic-ai/claude-code@2.1.331, but baton pins 2.1.332');
  });

  it('refuses a package.json that asks for more than the CLI', () => {
    const lock = tampered((_l, m) => (m.dependencies['left-pad'] = '1.3.0'));
    expect(() => checkLockfile(lock)).toThrow('agent-clis/claude-code/package.json must depend on exactly @anthropic-ai/claude-code@2.1.332');
  });

  it('refuses a lockfile that lacks a dependency (npm ci would refuse it too), saying how to write it again', () => {
    const lock = tampered((l) => delete l.packages['node_modules/@anthropic-ai/claude-code-darwin-arm64']);
    expect(() => checkLockfile(lock)).toThrow('@anthropic-ai/claude-code depends on @anthropic-ai/claude-code-darwin-arm64, which the lockfile lacks; write it again with `npx tsx scripts/agent-clis/lock.ts claude-code`');
  });
});
