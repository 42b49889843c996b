// Builds what baton ships, with esbuild, deterministically:
//   dist/action.js  the Action (committed: the runner executes it as is; tests/action/bundle.test.ts
//                   rebuilds it in memory and fails when the committed file is stale)
//   dist/cli.js     the `baton` command and the MCP server (`baton mcp`); bin/baton.js runs it
//   dist/app.js     the GitHub App (`npm start`, the container image)
//   dist/index.js   the library: the manifest loader and validator, with dist/types/*.d.ts
// The last three are built by `npm run build` and by `prepack` (so `npm pack`/`npm publish`
// always ship fresh bundles); they are not committed, and a checkout runs the sources instead.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Bundle {
  entry: string;
  outfile: string;
  /**
   * Packages left to be installed as runtime dependencies (package.json `dependencies`) rather
   * than bundled. None today: Probot 14 bundles (its pages and assets are modules, its logger
   * runs in-process), and bundling spares users the ~90 MB of duplicated @octokit type
   * packages its dependency tree installs.
   */
  external: string[];
  /**
   * Split the modules the entry imports dynamically into chunks next to it (dist/<name>-<hash>.js),
   * so a command loads only what it uses: `baton --help` does not parse the MCP server.
   */
  split?: boolean;
}

export const BUNDLES = {
  action: { entry: 'src/action/run.ts', outfile: 'dist/action.js', external: [] },
  cli: { entry: 'src/cli/main.ts', outfile: 'dist/cli.js', external: [], split: true },
  app: { entry: 'src/app/main.ts', outfile: 'dist/app.js', external: [] },
  lib: { entry: 'src/index.ts', outfile: 'dist/index.js', external: [] },
} satisfies Record<string, Bundle>;

export type BundleName = keyof typeof BUNDLES;

/** The committed bundle; kept under this name for the staleness test and the bench. */
export const OUTFILE = BUNDLES.action.outfile;

/** Where `tsc` writes the library's type declarations. */
export const TYPES_DIR = 'dist/types';

/**
 * The manifest schema is read from disk next to the sources; in the bundle it is inlined.
 * The loading line is replaced at build time, and the build fails if it ever changes shape.
 */
const inlineSchema: Plugin = {
  name: 'inline-workflow-schema',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]manifest[\\/]schema-check\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const loading = "readFileSync(SCHEMA_URL, 'utf8')";
      if (!source.includes(loading)) {
        return { errors: [{ text: `src/manifest/schema-check.ts no longer loads the schema with ${loading}; update scripts/build.ts to inline it` }] };
      }
      const schema = readFileSync(new URL('schema/workflow.schema.json', pathToFileURL(ROOT + '/')), 'utf8');
      return { contents: source.replace(loading, JSON.stringify(schema)), loader: 'ts' };
    });
  },
};

/**
 * What a dependency loads at run time through `npx-import-light` — a local import, or else an
 * npm package fetched by npx — that baton's bundles carry instead, at the version named there:
 * Probot's Redis client for REDIS_URL (replicas). The bundles run where nothing can be installed
 * (the container image holds dist/app.js alone), and baton fetches no package at run time.
 */
export const BUNDLED_RUNTIME_IMPORTS = ['ioredis'];

/**
 * Bottleneck's Redis connection (Probot's throttle, for REDIS_URL) loads ioredis itself, with a
 * `require` hidden from bundlers in an eval: made a plain one, so that the bundle's ioredis
 * serves it. The build fails if that line ever changes shape.
 */
const bundleBottleneckRedis: Plugin = {
  name: 'bundle-bottleneck-ioredis',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]bottleneck[\\/]lib[\\/]IORedisConnection\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const hidden = 'eval("require")("ioredis")';
      if (!source.includes(hidden)) return { errors: [{ text: `bottleneck's IORedisConnection no longer loads ioredis with ${hidden}; update scripts/build.ts so that the bundle's ioredis serves it` }] };
      return { contents: source.replace(hidden, 'require("ioredis")'), loader: 'js' };
    });
  },
};

/**
 * Optional packages a bundled dependency tries in a try/catch and does without — ioredis's
 * `debug` colours its output with `supports-color` when installed. Bundled as absent (a module
 * that throws as a missing one does), so that nothing beside the bundle is ever loaded instead.
 */
const ABSENT_OPTIONAL = ['supports-color'];
const absentOptional: Plugin = {
  name: 'absent-optional-packages',
  setup(b) {
    const filter = new RegExp(`^(?:${ABSENT_OPTIONAL.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'absent-optional' }));
    b.onLoad({ filter: /.*/, namespace: 'absent-optional' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}' (not bundled)`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
  },
};

/**
 * Replaces `npx-import-light` with a module serving exactly the packages its importer names:
 * those of BUNDLED_RUNTIME_IMPORTS from the bundle (the build fails unless that exact version is
 * installed: pin it in package.json), every other one refused with a message naming it (Probot's
 * Sentry reporting and smee.io webhook proxy, which baton does not ship).
 */
export const bundleNpxImports: Plugin = {
  name: 'bundle-npx-imports',
  setup(b) {
    b.onResolve({ filter: /^npx-import-light$/ }, (args) => ({ path: args.importer, namespace: 'bundled-npx-import' }));
    b.onLoad({ filter: /.*/, namespace: 'bundled-npx-import' }, (args) => {
      const where = relative(ROOT, args.path);
      const calls = [...readFileSync(args.path, 'utf8').matchAll(/\bnpxImport\(([^,)]*)/g)].map((m) => m[1]!.trim());
      const table: string[] = [];
      for (const arg of calls) {
        const m = /^["'`]((?:@[^/"'`]+\/)?[^@/"'`]+)@([^"'`]+)["'`]$/.exec(arg);
        if (!m) return { errors: [{ text: `${where} imports ${arg} through npx-import-light: not a "name@version" literal, so the build cannot tell what to bundle` }] };
        const [, name, version] = m as unknown as [string, string, string];
        if (!BUNDLED_RUNTIME_IMPORTS.includes(name)) continue;
        let installed: string | undefined;
        try {
          installed = (JSON.parse(readFileSync(createRequire(join(ROOT, 'package.json')).resolve(`${name}/package.json`), 'utf8')) as { version?: string }).version;
        } catch {
          installed = undefined;
        }
        if (installed !== version) {
          return { errors: [{ text: `${where} loads ${name}@${version} at run time, which the bundle carries; ${installed ? `${name}@${installed} is` : 'it is not'} installed: npm install --save-dev --save-exact ${name}@${version}` }] };
        }
        table.push(`  ${JSON.stringify(`${name}@${version}`)}: () => import(${JSON.stringify(name)}),`);
      }
      return {
        resolveDir: ROOT,
        loader: 'js',
        contents: [
          `const bundled = {\n${table.join('\n')}\n};`,
          'export async function npxImport(pkg) {',
          '  if (Object.hasOwn(bundled, pkg)) return bundled[pkg]();',
          "  throw new Error(`${pkg} is not part of baton's bundle, and baton fetches no package at run time`);",
          '}',
          '',
        ].join('\n'),
      };
    });
  },
};

/** esbuild's options for one bundle; `outRoot` lets the bench and tests build a copy elsewhere. */
export function optionsFor(bundle: Bundle, outRoot = ROOT): BuildOptions {
  // Chunks sit beside the entry, not in a subfolder: code that finds package files relative
  // to itself (names.ts, load.ts) must be one level below the package root wherever it lands.
  const name = basename(bundle.outfile, '.js');
  const output: BuildOptions = bundle.split
    ? { outdir: join(outRoot, dirname(bundle.outfile)), entryNames: name, chunkNames: `${name}-[hash]`, splitting: true }
    : { outfile: join(outRoot, bundle.outfile) };
  return {
    absWorkingDir: ROOT,
    entryPoints: [bundle.entry],
    ...output,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    sourcemap: false,
    external: bundle.external,
    // Keep the licence notices of bundled dependencies that carry one.
    legalComments: 'eof',
    // Some dependencies are CommonJS and call require(); ESM has none, so give it one.
    banner: { js: "import { createRequire as __batonCreateRequire } from 'module'; const require = __batonCreateRequire(import.meta.url);" },
    plugins: [inlineSchema, bundleNpxImports, bundleBottleneckRedis, absentOptional],
    logLevel: 'warning',
  };
}

/** The Action bundle's options (what dist/action.js is built with). */
export const buildOptions: BuildOptions = optionsFor(BUNDLES.action);

/** A bundle as text, without writing it. */
export async function bundleText(bundle: Bundle = BUNDLES.action): Promise<string> {
  const r = await build({ ...optionsFor(bundle), write: false });
  return r.outputFiles[0]!.text;
}

/** The packages a bundle's inputs come from (`probot`, `@octokit/rest`, …), from its metafile. */
export function bundledPackages(metafile: Metafile): Set<string> {
  const names = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) names.add(m[1]!);
  }
  return names;
}

/**
 * The library's declarations: `tsc` on src/index.ts alone, emitting only .d.ts files, with the
 * `.ts` extensions of relative imports rewritten to `.js` as the built files are named.
 */
export function emitTypes(outRoot = ROOT): void {
  const out = join(outRoot, TYPES_DIR);
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [
    tsc, 'src/index.ts',
    '--declaration', '--emitDeclarationOnly', '--outDir', out, '--rootDir', 'src',
    '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
    '--strict', '--skipLibCheck', '--types', 'node',
    '--allowImportingTsExtensions', '--rewriteRelativeImportExtensions', '--resolveJsonModule',
  ], { cwd: ROOT, stdio: 'inherit' });
  keepPublicDeclarations(out);
}

/**
 * tsc declares every file the entry's code reaches, some in terms of packages that are bundled
 * and not installed with baton (yaml, @actions/expressions). Keep only the declarations the
 * entry's types reach, and name them `.js` as consumers resolve them.
 */
function keepPublicDeclarations(out: string): void {
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    const text = readFileSync(file, 'utf8').replace(/(from '\.{1,2}\/[^']*)\.ts'/g, "$1.js'");
    writeFileSync(file, text);
    for (const m of text.matchAll(/from '(\.{1,2}\/[^']*)\.js'/g)) visit(join(dirname(file), `${m[1]!}.d.ts`));
  };
  visit(join(out, 'index.d.ts'));
  for (const name of readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    const file = join(out, name);
    if (name.endsWith('.d.ts') && !reached.has(file)) rmSync(file);
  }
  for (const file of reached) {
    const bare = /from '(?![./])([^']+)'/.exec(readFileSync(file, 'utf8'));
    if (bare) throw new Error(`${relative(out, file)} declares types from ${bare[1]}, which is bundled, not installed: keep it out of the public API`);
  }
}

/** Writes every bundle (and the declarations) under `outRoot`; answers each bundle's metafile. */
export async function buildAll(outRoot = ROOT, o: { types?: boolean } = {}): Promise<Record<BundleName, Metafile>> {
  const metafiles = {} as Record<BundleName, Metafile>;
  // Chunks are named by content hash: remove the last build's so none is left behind.
  const dist = join(outRoot, 'dist');
  if (existsSync(dist)) {
    for (const file of readdirSync(dist)) if (/^[a-z]+-[A-Z0-9]{8}\.js$/.test(file)) rmSync(join(dist, file));
  }
  for (const [name, bundle] of Object.entries(BUNDLES) as [BundleName, Bundle][]) {
    metafiles[name] = (await build({ ...optionsFor(bundle, outRoot), metafile: true })).metafile;
  }
  if (o.types !== false) emitTypes(outRoot);
  return metafiles;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const metafiles = await buildAll();
  for (const [name, metafile] of Object.entries(metafiles)) {
    const bytes = Object.values(metafile.outputs).reduce((s, o) => s + o.bytes, 0);
    console.log(`${BUNDLES[name as BundleName].outfile}: ${(bytes / 1024).toFixed(0)} KiB`);
  }
  console.log(`${TYPES_DIR}/: declarations of src/index.ts`);
}
