// Bundles the Action into dist/action.js (committed: the runner executes it as is).
// `npm run build` writes it; tests/action/bundle.test.ts rebuilds it in memory and fails
// when the committed file is stale, so the output must be deterministic.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OUTFILE = 'dist/action.js';

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

export const buildOptions: BuildOptions = {
  absWorkingDir: ROOT,
  entryPoints: ['src/action/run.ts'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  sourcemap: false,
  // Keep the licence notices of bundled dependencies that carry one.
  legalComments: 'eof',
  // Some dependencies are CommonJS and call require(); ESM has none, so give it one.
  banner: { js: "import { createRequire as __batonCreateRequire } from 'module'; const require = __batonCreateRequire(import.meta.url);" },
  plugins: [inlineSchema],
  logLevel: 'warning',
};

/** The bundle as text, without writing it. */
export async function bundleText(): Promise<string> {
  const r = await build({ ...buildOptions, write: false });
  return r.outputFiles[0]!.text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await build({ ...buildOptions, metafile: true });
  const bytes = Object.values(r.metafile.outputs).reduce((s, o) => s + o.bytes, 0);
  console.log(`${OUTFILE}: ${(bytes / 1024).toFixed(0)} KiB`);
}
