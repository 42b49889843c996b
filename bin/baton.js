#!/usr/bin/env node
// Runs the CLI from its TypeScript sources through tsx, so `npx baton` works right
// after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
