// The lockfiles baton ships for the agent CLIs, and the check every install passes first:
// a lockfile that would let npm install something unchecked is refused, saying what and where.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLockfile, lockRoot, npmCliLock, npmCliLocks } from '../../../src/agents/install/lockfiles.ts';
import { installNpmCli, InstallRefused } from '../../../src/agents/install/install-cli.ts';
import { meantFor } from '../../../src/agents/install/installed-tree.ts';
import { currentPlatform } from '../../../src/agents/install/native-binary.ts';
import { platformOfName } from '../../../scripts/agent-clis/lock.ts';

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

  describe('a platform package the registry lacked when the lockfile was written (locked with neither address nor hash)', () => {
    const strip = (key: string) => (l: any) => {
      delete l.packages[key].resolved;
      delete l.packages[key].integrity;
    };
    const ownKey = () => {
      const lock = JSON.parse(readFileSync(join(lockRoot(), 'claude-code', 'package-lock.json'), 'utf8'));
      return Object.keys(lock.packages).find((k) => /claude-code-(linux|darwin|win32)/.test(k) && meantFor(lock.packages[k], currentPlatform()))!;
    };

    it('passes the check: npm never fetches it on another platform', () => {
      const other = Object.keys(JSON.parse(readFileSync(join(lockRoot(), 'claude-code', 'package-lock.json'), 'utf8')).packages).find((k) => k.endsWith('claude-code-win32-x64'))!;
      expect(() => checkLockfile(tampered(strip(other)))).not.toThrow();
    });

    it('refuses the install on its own platform before npm runs, naming the package and how to lock it again', async () => {
      const lock = tampered(strip(ownKey()));
      const prefix = mkdtempSync(join(tmpdir(), 'baton-prefix-'));
      dirs.push(prefix);
      const log = { info: () => {}, warning: () => {} };
      const refused = installNpmCli(lock, prefix, log, { tries: 1, pauseMs: 0 });
      await expect(refused).rejects.toBeInstanceOf(InstallRefused);
      await expect(refused).rejects.toThrow(/has no integrity hash for @anthropic-ai\/claude-code-[\w-]+@2\.1\.332, the package for this platform .*npx tsx scripts\/agent-clis\/lock\.ts claude-code/);
    });

    it('is not taken for one when it has an address or a hash', () => {
      expect(() => checkLockfile(tampered((l) => delete l.packages[ownKey()].integrity))).toThrow('has no sha512 integrity hash');
    });

    it('gets its platform from its name when lock.ts writes it', () => {
      expect(platformOfName('opencode-linux-x64-baseline-musl')).toEqual({ os: 'linux', cpu: 'x64', libc: 'musl' });
      expect(platformOfName('opencode-windows-arm64')).toEqual({ os: 'win32', cpu: 'arm64' });
      expect(platformOfName('opencode-darwin-x64-baseline')).toEqual({ os: 'darwin', cpu: 'x64' });
      expect(platformOfName('opencode-linux-arm64')).toEqual({ os: 'linux', cpu: 'arm64', libc: 'glibc' });
      expect(platformOfName('left-pad')).toBeNull();
    });
  });
});
