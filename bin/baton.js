#!/usr/bin/env node
// The `baton` command. The package runs the built CLI (dist/cli.js, made by `prepack`). A
// checkout of baton's repository has its sources next to this file and runs those through
// tsx (a devDependency), so `npm ci && npx baton …` works on a fresh clone with no build
// step and never runs a bundle older than the sources being edited.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/cli.js'));
}
process.exitCode = await main(process.argv.slice(2));
