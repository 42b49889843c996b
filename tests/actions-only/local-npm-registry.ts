// A loopback npm registry serving a few packages built on the spot, and the lockfile that
// locks them as `npm install` would write it (resolved at registry.npmjs.org: npm swaps in
// the configured registry, `replace-registry-host`). For installing a fake agent CLI through
// the worker's real install step without the network or the real 400 MB CLI.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface LocalPackage {
  /** package.json (name and version included). */
  manifest: { name: string; version: string; [k: string]: unknown };
  /** Files besides package.json: path → text; a leading `#!` makes it executable. */
  files: Record<string, string>;
  /** Locked as an optional dependency of the first package (a platform package). */
  optional?: boolean;
}

export interface LocalRegistry {
  url: string;
  /** `package.json` and `package-lock.json` of a project depending on exactly the first package. */
  project(name: string): { 'package.json': string; 'package-lock.json': string };
  /** How many tarballs were fetched. */
  downloads(): number;
  close(): Promise<void>;
}

const tarballPath = (name: string, version: string): string => `/${name}/-/${name.split('/').pop()}-${version}.tgz`;

export async function startLocalRegistry(packages: LocalPackage[]): Promise<LocalRegistry> {
  const scratch = mkdtempSync(join(tmpdir(), 'baton-registry-'));
  const built = packages.map((p, i) => {
    const root = join(scratch, String(i));
    const files = { 'package.json': JSON.stringify(p.manifest, null, 2), ...p.files };
    for (const [path, text] of Object.entries(files)) {
      const full = join(root, 'package', path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
      if (text.startsWith('#!')) chmodSync(full, 0o755);
    }
    const tgz = join(root, 'package.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', root, 'package']);
    const bytes = readFileSync(tgz);
    return { ...p, bytes, integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`, path: tarballPath(p.manifest.name, p.manifest.version) };
  });
  let downloads = 0;
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
    const tar = built.find((b) => b.path === path);
    if (tar) {
      downloads++;
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tar.bytes);
      return;
    }
    const doc = built.find((b) => `/${b.manifest.name}` === path);
    if (doc) {
      const { manifest } = doc;
      const dist = { tarball: `${url}${doc.path.slice(1)}`, integrity: doc.integrity };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } }));
      return;
    }
    // Nothing else, signing keys (/-/npm/v1/keys) included: this registry signs nothing.
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    project(name) {
      const top = built[0]!;
      const entry = (b: (typeof built)[number]) => {
        const scripts = b.manifest.scripts as Record<string, string> | undefined;
        return {
          version: b.manifest.version,
          resolved: `https://registry.npmjs.org${b.path}`,
          integrity: b.integrity,
          ...(scripts?.postinstall || scripts?.install ? { hasInstallScript: true } : {}),
          ...(b.optional ? { optional: true } : {}),
          ...Object.fromEntries(Object.entries(b.manifest).filter(([k]) => ['bin', 'optionalDependencies', 'dependencies', 'os', 'cpu'].includes(k))),
        };
      };
      const deps = { [top.manifest.name]: top.manifest.version };
      const lock = {
        name,
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name, dependencies: deps }, ...Object.fromEntries(built.map((b) => [`node_modules/${b.manifest.name}`, entry(b)])) },
      };
      return { 'package.json': JSON.stringify({ name, private: true, dependencies: deps }, null, 2), 'package-lock.json': JSON.stringify(lock, null, 2) };
    },
    downloads: () => downloads,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
