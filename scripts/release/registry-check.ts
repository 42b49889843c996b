/**
 * The release path up to the registry, on loopback: starts a throwaway npm registry
 * (verdaccio) on 127.0.0.1, publishes this checkout to it with `npm publish` (which builds
 * through `prepack`), then from an empty folder with an empty npm cache runs what a user runs:
 * `npx -y @baton-dev/baton --version`, and `npx -y @baton-dev/baton@<version> mcp` (as the
 * README's MCP snippets start it) driven by the MCP SDK's client (initialize, list the tools).
 * Prints how long each part took.
 *
 *   npx tsx scripts/release/registry-check.ts        (or: npm run release:registry-check)
 *   npx tsx scripts/release/registry-check.ts --tarball <file.tgz>
 *
 * With --tarball it publishes that file instead of packing this checkout: the release job checks
 * the very tarball it hands to the publish job.
 *
 * Verdaccio is never a devDependency: it comes from its own committed lockfile
 * (scripts/release/registry-check/package.json and package-lock.json), installed into a temporary
 * folder with `npm ci --ignore-scripts` (./registry-tools.ts), so the release job runs only the
 * 327 packages that lockfile names, at the bytes its integrity hashes name, and none of their
 * install scripts.
 * The lockfile pins verdaccio 6.8.0 with `node-fetch` overridden to 2.7.0 (the version its
 * dependency tree resolves otherwise does not start on this Node). To move verdaccio: edit that
 * package.json, then `npm install --package-lock-only --ignore-scripts` in its folder.
 * Exit status: 0 when every check passed, 1 otherwise.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PACKAGE_NAME } from '../../src/names.ts';
import { installRegistryTools } from './registry-tools.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const figures: [string, number][] = [];
async function timed<T>(what: string, fn: () => T | Promise<T>): Promise<T> {
  const t = performance.now();
  const r = await fn();
  figures.push([what, Math.round(performance.now() - t)]);
  return r;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitForRegistry(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}`);
    if (await fetch(`${url}-/ping`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('verdaccio did not answer /-/ping within 60 s');
}

const args = process.argv.slice(2);
const at = args.indexOf('--tarball');
const tarball = at >= 0 ? resolve(args[at + 1] ?? '') : null;
if (at >= 0 && !args[at + 1]?.endsWith('.tgz')) {
  console.error('registry check: --tarball needs the path of a .tgz that npm pack made');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'baton-registry-'));
let registry: ChildProcess | undefined;
try {
  // 1. Verdaccio, from its committed lockfile, into a temporary folder (no node_modules in the repository).
  const home = join(dir, 'verdaccio');
  mkdirSync(home);
  await timed('install verdaccio (npm ci)', () => installRegistryTools(home));

  // 2. Started on loopback with a temporary storage; no uplink, so nothing can come from npmjs.org.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(join(dir, 'config.yaml'), [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    'uplinks: {}',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    'log: { type: stdout, format: pretty, level: warn }',
  ].join('\n') + '\n');
  registry = spawn(process.execPath, [join(home, 'node_modules/verdaccio/bin/verdaccio'), '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  await timed('start verdaccio', () => waitForRegistry(url, registry!));

  // 3. A user on it (what `npm adduser` does), and an npmrc with its token: npm publishes only when logged in.
  const user = await fetch(`${url}-/user/org.couchdb.user:release-check`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release-check', password: 'release-check-password' }),
  });
  const { token } = (await user.json()) as { token?: string };
  if (!token) throw new Error(`verdaccio refused to create a user: ${user.status}`);
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  // An empty cache: the package must come from the loopback registry, not from an earlier install.
  const env = { ...process.env, npm_config_userconfig: npmrc, npm_config_registry: url, npm_config_cache: join(dir, 'cache'), npm_config_update_notifier: 'false' };

  // 4. Publish the release job's tarball as it is, or else this checkout (prepack builds the bundles).
  await timed('npm publish', () => tarball
    ? execFileSync('npm', ['publish', tarball, '--ignore-scripts', '--registry', url, '--loglevel=error'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] })
    : execFileSync('npm', ['publish', '--registry', url, '--loglevel=error'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] }));

  // 5. From an empty folder, as a user would.
  const fresh = join(dir, 'fresh');
  mkdirSync(fresh);
  const version = await timed('npx -y --version (cold)', () => execFileSync('npx', ['-y', PACKAGE_NAME, '--version'], { cwd: fresh, env, encoding: 'utf8' }).trim());
  if (version !== `${PACKAGE_NAME} ${VERSION}`) throw new Error(`npx -y ${PACKAGE_NAME} --version printed ${JSON.stringify(version)}`);
  await timed('npx -y --version (cached)', () => execFileSync('npx', ['-y', PACKAGE_NAME, '--version'], { cwd: fresh, env, encoding: 'utf8' }));

  const tools = await timed('npx -y mcp: initialize + list tools', async () => {
    const transport = new StdioClientTransport({ command: 'npx', args: ['-y', `${PACKAGE_NAME}@${VERSION}`, 'mcp'], cwd: fresh, env: env as Record<string, string>, stderr: 'inherit' });
    const client = new Client({ name: 'baton-registry-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const server = client.getServerVersion();
      if (server?.name !== 'baton' || server.version !== VERSION) throw new Error(`mcp answered initialize as ${JSON.stringify(server)}`);
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  });
  if (!tools.includes('baton_validate')) throw new Error(`mcp listed ${tools.join(', ')}`);

  console.log(`\n${PACKAGE_NAME}@${VERSION} published to a loopback registry and run from it with npx -y: ${version}; mcp tools: ${tools.length}`);
  for (const [what, ms] of figures) console.log(`  ${what.padEnd(40)} ${ms.toLocaleString('en-US')} ms`);
} catch (err) {
  console.error(`registry check failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  registry?.kill();
  rmSync(dir, { recursive: true, force: true });
}
