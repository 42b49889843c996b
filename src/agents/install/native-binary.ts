// The postinstall steps baton has reviewed, as baton's own code: the CLIs' packages are
// installed with scripts off, and a CLI that needs its postinstall gets this instead.
// claude-code (`install.cjs`) and opencode (`postinstall.mjs`) ship a stub as their `bin`
// and a native binary in a per-platform optional dependency; their postinstall copies the
// binary over the stub. That is all baton does here — no download (opencode's script
// falls back to `npm install` of another platform package; baton's lockfile is the whole
// tree), nothing else the scripts might grow into in a later version.
// Nothing to do for codex, copilot and gemini (none has a postinstall baton needs: gemini's
// native modules node-pty and keytar are optional, and it runs without them).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../manifest/types.ts';

export interface Platform {
  os: NodeJS.Platform;
  arch: string;
  musl: boolean;
  /** x64 only: the CPU has AVX2 (opencode's non-baseline builds need it). */
  avx2: boolean;
}

export function currentPlatform(): Platform {
  // glibcVersionRuntime is absent on musl (what claude-code's install.cjs checks too).
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  let avx2 = false;
  if (process.platform === 'linux' && process.arch === 'x64') {
    try {
      avx2 = /(^|\s)avx2(\s|$)/.test(readFileSync('/proc/cpuinfo', 'utf8'));
    } catch {
      // no /proc: the baseline build is tried first, then the other
    }
  }
  return { os: process.platform, arch: process.arch, musl: process.platform === 'linux' && report?.header?.glibcVersionRuntime === undefined, avx2 };
}

export interface ReviewedPostinstall {
  /** What the package's own script does, for the log and docs/agents.md. */
  replaces: string;
  /** The stub the package's `bin` points at, under node_modules. */
  stub: string;
  /** Native binaries (under node_modules) to put there, best first; the first that runs `--version` is used. */
  candidates(p: Platform): string[];
}

export const REVIEWED_POSTINSTALLS: Partial<Record<Backend, ReviewedPostinstall>> = {
  'claude-code': {
    replaces: '@anthropic-ai/claude-code install.cjs',
    stub: '@anthropic-ai/claude-code/bin/claude.exe',
    candidates: (p) => [`@anthropic-ai/claude-code-${p.os}-${p.arch}${p.musl ? '-musl' : ''}/claude${p.os === 'win32' ? '.exe' : ''}`],
  },
  opencode: {
    replaces: 'opencode-ai postinstall.mjs',
    stub: 'opencode-ai/bin/opencode.exe',
    candidates: (p) => {
      const base = `opencode-${p.os === 'win32' ? 'windows' : p.os}-${p.arch}`;
      const libc = p.musl ? ['-musl', ''] : ['', '-musl'];
      const builds = p.arch === 'x64' ? (p.avx2 ? ['', '-baseline'] : ['-baseline', '']) : [''];
      const names = libc.flatMap((l) => builds.map((b) => `${base}${b}${l}`));
      return names.map((n) => `${n}/bin/opencode${p.os === 'win32' ? '.exe' : ''}`);
    },
  },
};

/**
 * Puts the platform's native binary in place of the stub (a hard link, or a copy across
 * file systems), trying the candidates npm installed until one runs. Returns the one used.
 */
export function placeNativeBinary(backend: Backend, nodeModules: string, platform = currentPlatform()): string | null {
  const reviewed = REVIEWED_POSTINSTALLS[backend];
  if (!reviewed) return null;
  const stub = join(nodeModules, reviewed.stub);
  const tried: string[] = [];
  for (const candidate of reviewed.candidates(platform)) {
    const source = join(nodeModules, candidate);
    if (!existsSync(source)) continue;
    tried.push(candidate);
    rmSync(stub, { force: true });
    try {
      linkSync(source, stub);
    } catch {
      copyFileSync(source, stub);
    }
    chmodSync(stub, 0o755);
    if (spawnSync(stub, ['--version'], { stdio: 'ignore', timeout: 60_000 }).status === 0) return candidate;
  }
  const want = reviewed.candidates(platform).map((c) => c.split('/').slice(0, c.startsWith('@') ? 2 : 1).join('/')).join(', ');
  throw new Error(
    tried.length
      ? `${backend}: none of its native binaries runs here (${tried.join(', ')} tried)`
      : `${backend}: baton's lockfile has no native binary for ${platform.os}-${platform.arch}${platform.musl ? ' (musl)' : ''}; looked for ${want}`,
  );
}
